-- 0016_device_outcomes: each device's last delivery outcome in a narrow table of its own,
-- out of `devices`.
--
-- Every push the outbox or a pnm2 send delivers writes its device's last outcome. In
-- `devices` that rewrote a wide row per push; on PostgreSQL each write was a new version
-- of the whole row with new entries in every index of `devices` (its pages are full, so
-- the update is never in place), and a fan-out left as many dead rows behind as it had
-- devices. Here a row is an id, a short text and a time. SQLite cascades a deleted device
-- through the foreign key; PostgreSQL (its twin of this file) deletes it with a trigger,
-- as a foreign key's check would lock every device row an outcome is written for.
CREATE TABLE device_outcomes (
    device_id INTEGER PRIMARY KEY REFERENCES devices (id) ON DELETE CASCADE,
    -- "delivered", or what went wrong (bounded to 200 characters).
    outcome TEXT NOT NULL,
    -- Unix seconds, like every device time.
    at INTEGER NOT NULL
) STRICT;

INSERT INTO device_outcomes (device_id, outcome, at)
SELECT id, last_outcome, coalesce(last_outcome_at, updated_at) FROM devices WHERE last_outcome IS NOT NULL;

ALTER TABLE devices DROP COLUMN last_outcome;
ALTER TABLE devices DROP COLUMN last_outcome_at;
