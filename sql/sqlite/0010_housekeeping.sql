-- 0010_housekeeping: what lets `pushgate serve` remove what nobody uses any more, cheaply.
--
-- Anyone can write to the client-side APIs, so nothing may grow forever:
-- * devices no report, registration or refresh touched for PUSHGATE_DEVICE_RETENTION_DAYS
--   (updated_at) go, with every link to them (the schema cascades);
-- * devices of apps never registered (platform NULL) go after 7 days;
-- * dead letters go after PUSHGATE_DEAD_LETTER_RETENTION_DAYS. A dead letter's
--   next_attempt_at is the lease end its last claim set: when it died, give or take a lease.
-- Each is a range scan of an index below, deleted in small batches.

CREATE INDEX devices_updated ON devices (updated_at);
-- Unregistered apps' devices are few among many: their own index, so that finding the old
-- ones never walks the registered devices of the last 270 days.
CREATE INDEX devices_unregistered ON devices (updated_at) WHERE platform IS NULL;
CREATE INDEX outbox_dead_since ON outbox (next_attempt_at) WHERE state = 'dead';

-- One row: when housekeeping may run next (the claim that keeps two nodes from running it
-- at once), and what it removed, for `pushgate outbox` and /status. Times in unix seconds.
CREATE TABLE housekeeping (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    next_run_at INTEGER NOT NULL,
    last_run_at INTEGER,
    last_devices INTEGER NOT NULL DEFAULT 0,
    last_unregistered INTEGER NOT NULL DEFAULT 0,
    last_dead_letters INTEGER NOT NULL DEFAULT 0,
    total_devices INTEGER NOT NULL DEFAULT 0,
    total_unregistered INTEGER NOT NULL DEFAULT 0,
    total_dead_letters INTEGER NOT NULL DEFAULT 0
) STRICT;

INSERT INTO housekeeping (id, next_run_at) VALUES (1, 0);
