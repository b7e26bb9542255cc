/*
 * serve's delete of a device nothing owns (Sources/PushStore/Devices/DeviceTable.swift,
 * deleteIfOwnerlessSQL), written once for the C programs that run it: report-floor-schema.c
 * and device-delete.c.
 */
#ifndef DEVICE_DELETE_SQL_H
#define DEVICE_DELETE_SQL_H

static const char *const delete_sql =
    "DELETE FROM devices WHERE id = ?1"
    " AND NOT EXISTS (SELECT 1 FROM acrobits_accounts WHERE device_id = ?1)"
    " AND NOT EXISTS (SELECT 1 FROM user_devices WHERE device_id = ?1)"
    " AND NOT EXISTS (SELECT 1 FROM beams_clients WHERE device_id = ?1)"
    " AND NOT EXISTS (SELECT 1 FROM bridge_subscriptions WHERE device_id = ?1)";

#endif
