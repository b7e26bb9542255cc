-- 0018_checks_without_in_lists: the CHECKs of the two tables written on every push and every
-- new device name their allowed values one comparison at a time, not as an IN list.
--
-- SQLite evaluates a CHECK's `x IN ('a', 'b', 'c')` (three values or more) by building a
-- temporary index of the list each time the statement runs. An INSERT runs once per row: the
-- outbox logs every push into `delivery_log` and every new device goes into `devices`, and
-- the list cost 5–6 µs of each such row (an insert without it takes about 2). Written as
-- `x = 'a' OR x = 'b' OR …` the check is the same and costs a few comparisons. The rule for
-- every table written per push or per report: no IN list of three values or more in its
-- CHECKs (StoreSchemaTests checks the inserts of both tables).
--
-- SQLite cannot change a CHECK in place, so both tables are rebuilt as its documentation
-- describes (create, copy, drop, rename, recreate the indexes), as 0011 did. Rebuilding
-- `devices` rewrites it once, holding the write lock while it runs (docs/operations.md).
-- The Migrator runs every migration with foreign keys off and checks them before it commits.

CREATE TABLE devices_0018 (
    id INTEGER PRIMARY KEY,
    app_id TEXT NOT NULL,
    token BLOB NOT NULL CHECK (length(token) > 0),
    reported_token TEXT NOT NULL,
    platform TEXT CHECK (platform = 'apns' OR platform = 'fcm' OR platform = 'web'),
    sandbox INTEGER CHECK (sandbox IN (0, 1)),
    apns_topic TEXT,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    UNIQUE (app_id, token)
) STRICT;

INSERT INTO devices_0018 (id, app_id, token, reported_token, platform, sandbox, apns_topic, created_at, updated_at)
SELECT id, app_id, token, reported_token, platform, sandbox, apns_topic, created_at, updated_at
FROM devices;

DROP TABLE devices;
ALTER TABLE devices_0018 RENAME TO devices;
CREATE INDEX devices_updated ON devices (updated_at);
CREATE INDEX devices_unregistered ON devices (updated_at) WHERE platform IS NULL;

CREATE TABLE delivery_log_0018 (
    id INTEGER PRIMARY KEY,
    at INTEGER NOT NULL,
    app_id TEXT NOT NULL,
    -- Shortened (PushCore.DeviceToken.description): a log never holds a whole token.
    token TEXT NOT NULL,
    outcome TEXT NOT NULL CHECK (
        outcome = 'delivered' OR outcome = 'retry' OR outcome = 'dead' OR outcome = 'pruned' OR outcome = 'kept'),
    -- The upstream reason, the retry time, or the apns-id / FCM message name.
    detail TEXT,
    source TEXT
) STRICT;

INSERT INTO delivery_log_0018 (id, at, app_id, token, outcome, detail, source)
SELECT id, at, app_id, token, outcome, detail, source FROM delivery_log;

DROP TABLE delivery_log;
ALTER TABLE delivery_log_0018 RENAME TO delivery_log;
