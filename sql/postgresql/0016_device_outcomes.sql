-- 0016_device_outcomes: each device's last delivery outcome in a narrow table of its own,
-- out of `devices`. (The PostgreSQL twin of sql/0016_device_outcomes.sql.)
--
-- Every push the outbox or a pnm2 send delivers writes its device's last outcome. In
-- `devices` each write made a new version of the whole row with new entries in every index
-- of `devices` (its pages are full, so the update is never in place), and a fan-out left
-- as many dead rows behind as it had devices. Here a row is an id, a short text and a time.
--
-- No foreign key: its check locks the device row of every outcome written (FOR KEY SHARE),
-- which dirties the very pages of `devices` this table keeps the outcomes out of. Writers
-- join `devices` instead (an outcome is only written for a device that exists), and the
-- trigger below deletes a device's outcome with the device, cascades included.
CREATE TABLE device_outcomes (
    device_id BIGINT PRIMARY KEY,
    -- "delivered", or what went wrong (bounded to 200 characters).
    outcome TEXT COLLATE "C" NOT NULL,
    -- Unix seconds, like every device time.
    at BIGINT NOT NULL
);

INSERT INTO device_outcomes (device_id, outcome, at)
SELECT id, last_outcome, coalesce(last_outcome_at, updated_at) FROM devices WHERE last_outcome IS NOT NULL;

ALTER TABLE devices DROP COLUMN last_outcome, DROP COLUMN last_outcome_at;

-- A row trigger: one probe of the primary key per deleted device. (A statement trigger's
-- table of deleted rows has no statistics, and a plan that scans every outcome to delete
-- one device's would be the wrong one for the common case, a single prune.)
CREATE FUNCTION pushgate_forget_device_outcome() RETURNS trigger
LANGUAGE plpgsql
AS $$
BEGIN
    DELETE FROM device_outcomes WHERE device_id = OLD.id;
    RETURN NULL;
END
$$;

CREATE TRIGGER devices_forget_outcome AFTER DELETE ON devices
FOR EACH ROW EXECUTE FUNCTION pushgate_forget_device_outcome();
