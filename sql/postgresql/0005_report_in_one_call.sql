-- 0005_report_in_one_call: a Token Reporter report in one round trip (see sql/0005_report_in_one_call.sql).
--
-- The same statements, in the same order and with the same effect, as
-- SQLStore.saveAccountTokens runs from Swift on SQLite: per channel, the report recorded on
-- the device the account already links to when the token is that device's, else the device
-- found or created for (app, token) and the link written; a new username on an unchanged
-- link renames it; afterwards, devices whose link moved are deleted if nothing else owns
-- them. From Swift a new account cost nine round trips; here it is one.
--
-- It runs READ COMMITTED (see PostgreSQLStore+AccountReport.swift), so it takes the locks
-- the Swift code had from SQLite's single writer: an advisory lock on the selector, so that
-- two reports of one account run one after the other, and FOR UPDATE on the devices it may
-- delete, so that a link another transaction adds to one of them is either seen by the
-- delete (which then keeps the device) or made after it (and fails its foreign key, and that
-- transaction runs again). Each statement of a VOLATILE function sees the rows committed
-- before it started.
--
-- Channels come in as parallel arrays (channel, app id, token bytes, token as reported).
-- Every owner table of the schema is listed in the ownerless delete, as in DeviceTable.
CREATE FUNCTION pushgate_save_account_tokens(
    p_selector TEXT, p_username TEXT, p_now BIGINT,
    p_channels TEXT[], p_apps TEXT[], p_tokens BYTEA[], p_reported TEXT[]
) RETURNS VOID
LANGUAGE plpgsql AS $$
DECLARE
    v_linked BIGINT;
    v_linked_username TEXT;
    v_has_link BOOLEAN;
    v_device BIGINT;
    v_replaced BIGINT[] := '{}';
BEGIN
    PERFORM pg_advisory_xact_lock(hashtextextended('acrobits_accounts:' || p_selector, 0));
    FOR i IN 1 .. coalesce(array_length(p_channels, 1), 0) LOOP
        SELECT device_id, username INTO v_linked, v_linked_username
        FROM acrobits_accounts WHERE selector = p_selector AND channel = p_channels[i];
        v_has_link := FOUND;
        v_device := NULL;
        IF v_has_link THEN
            UPDATE devices SET reported_token = p_reported[i], updated_at = p_now
            WHERE id = v_linked AND app_id = p_apps[i] AND token = p_tokens[i];
            IF FOUND THEN
                v_device := v_linked;
            END IF;
        END IF;
        IF v_device IS NULL THEN
            SELECT id INTO v_device FROM devices WHERE app_id = p_apps[i] AND token = p_tokens[i];
            IF FOUND THEN
                UPDATE devices SET reported_token = p_reported[i], updated_at = p_now
                WHERE id = v_device AND app_id = p_apps[i] AND token = p_tokens[i];
            ELSE
                INSERT INTO devices (app_id, token, reported_token, platform, created_at, updated_at)
                VALUES (p_apps[i], p_tokens[i], p_reported[i], (SELECT platform FROM apps WHERE id = p_apps[i]), p_now, p_now)
                RETURNING id INTO v_device;
            END IF;
        END IF;
        IF v_has_link AND v_linked = v_device THEN
            IF p_username IS NOT NULL AND p_username IS DISTINCT FROM v_linked_username THEN
                UPDATE acrobits_accounts SET username = p_username, updated_at = p_now
                WHERE selector = p_selector AND channel = p_channels[i];
            END IF;
            CONTINUE;
        END IF;
        INSERT INTO acrobits_accounts (selector, channel, username, device_id, updated_at)
        VALUES (p_selector, p_channels[i], p_username, v_device, p_now)
        ON CONFLICT (selector, channel) DO UPDATE SET
            username = COALESCE(excluded.username, acrobits_accounts.username),
            device_id = excluded.device_id,
            updated_at = excluded.updated_at;
        IF v_has_link THEN
            v_replaced := v_replaced || v_linked;
        END IF;
    END LOOP;
    IF cardinality(v_replaced) = 0 THEN
        RETURN;
    END IF;
    PERFORM 1 FROM devices WHERE id = ANY (v_replaced) ORDER BY id FOR UPDATE;
    DELETE FROM devices
    WHERE id = ANY (v_replaced)
        AND NOT EXISTS (SELECT 1 FROM acrobits_accounts WHERE device_id = devices.id)
        AND NOT EXISTS (SELECT 1 FROM user_devices WHERE device_id = devices.id)
        AND NOT EXISTS (SELECT 1 FROM beams_clients WHERE device_id = devices.id)
        AND NOT EXISTS (SELECT 1 FROM bridge_subscriptions WHERE device_id = devices.id);
END
$$;
