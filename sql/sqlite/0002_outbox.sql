-- 0002_outbox: the durable outbox that fan-out (Beams interests, bridge topics, cospace
-- events) writes into and the outbox worker delivers from, and the log operators read.
--
-- Times in this file are unix MILLISECONDS, unlike 0001's seconds: retries start at about
-- a second with random jitter, and a lease or a backoff rounded to whole seconds would
-- bunch retries together and make "due now" coarse.
--
-- The outbox is durable because publishing commits the payload and one row per device in
-- one transaction before it answers; a crash afterwards loses nothing. A row leaves the
-- outbox only when its delivery is answered (delivered, dead token) or stays as a dead
-- letter for operators.

-- One row per publish or event: what every device of the fan-out receives. Stored once,
-- not per device, so that 100,000 outbox rows cost 100,000 small rows, not 100,000 copies
-- of the payload. Deleted by the store when no outbox row refers to it any more.
CREATE TABLE outbox_payloads (
    id INTEGER PRIMARY KEY,
    -- Who published it ("beams:publish", "bridge:topic", "cospace:event"), for operators.
    source TEXT NOT NULL,
    -- The APNs half (PushCore.APNsMessage): the body as sent, and the headers Apple reads.
    -- All NULL when the publish had no APNs half; apns_payload is what says it had one.
    apns_payload BLOB,
    apns_push_type TEXT CHECK (apns_push_type IN ('alert', 'voip', 'background')),
    apns_priority INTEGER,
    apns_topic TEXT,
    apns_expiration INTEGER,
    apns_collapse_id TEXT,
    apns_id TEXT,
    -- The FCM half (PushCore.FCMMessage): the fields of an HTTP v1 `message` as a JSON
    -- object. Text, not columns: FCM's message is an open-ended JSON document.
    fcm_message TEXT CHECK (fcm_message IS NULL OR json_type(fcm_message) = 'object'),
    created_at INTEGER NOT NULL,
    -- A push to nobody's platform is a bug in the publisher: refuse it here too.
    CHECK (apns_payload IS NOT NULL OR fcm_message IS NOT NULL),
    -- Headers without a body would be silently dropped on read.
    CHECK (apns_payload IS NOT NULL OR (apns_push_type IS NULL AND apns_priority IS NULL AND apns_topic IS NULL
        AND apns_expiration IS NULL AND apns_collapse_id IS NULL AND apns_id IS NULL))
) STRICT;

-- One row per (payload, device) still to deliver, or given up on (a dead letter).
--
-- device_id cascades: pruning a dead device, or any dialect deleting a device no owner
-- links to, drops its queued pushes with it; they could never be delivered.
-- payload_id cascades too, so deleting a payload (an operator purging a bad publish) takes
-- its rows along.
CREATE TABLE outbox (
    id INTEGER PRIMARY KEY,
    payload_id INTEGER NOT NULL REFERENCES outbox_payloads (id) ON DELETE CASCADE,
    device_id INTEGER NOT NULL REFERENCES devices (id) ON DELETE CASCADE,
    -- pending: waiting or in flight; dead: retries exhausted or refused upstream, kept for
    -- operators (`retryDeadLetters` makes them pending again).
    state TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'dead')),
    -- Deliveries started, counted when a worker claims the row: a row whose delivery
    -- crashes the process every time still reaches the limit and is dead-lettered.
    attempts INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0),
    -- When the row is due. A claim moves it to the end of the lease, so that a worker
    -- that dies mid-batch (kill -9) leaves rows that come back by themselves when the
    -- lease runs out, and "due" stays one range scan of one index.
    next_attempt_at INTEGER NOT NULL,
    -- Set while a worker holds the row (the end of its lease), NULL otherwise: shows
    -- operators what is in flight, and lets a restarted worker take its rows back early.
    claimed_until INTEGER,
    -- Why the last attempt failed (upstream reason, Retry-After), for operators.
    last_error TEXT,
    created_at INTEGER NOT NULL
) STRICT;

-- The worker's one question, "which pending rows are due, oldest first": a range scan of
-- this partial index, which dead letters stay out of.
CREATE INDEX outbox_due ON outbox (next_attempt_at) WHERE state = 'pending';
-- Dead letters are few among many pending rows: operators list and revive them without a
-- scan of the whole outbox.
CREATE INDEX outbox_dead ON outbox (id) WHERE state = 'dead';
-- The device cascade searches by device_id (0001's rule for every column referencing devices).
CREATE INDEX outbox_device ON outbox (device_id);
-- The payload cascade, and "does any row still use this payload?" when a batch completes.
CREATE INDEX outbox_payload ON outbox (payload_id);

-- Recent delivery outcomes of the outbox, for operators ("did the publish reach them?").
-- Bounded: the worker trims it to the newest rows. No foreign keys: an entry must outlive
-- the device it is about (a dead token's entry is the interesting one).
CREATE TABLE delivery_log (
    id INTEGER PRIMARY KEY,
    at INTEGER NOT NULL,
    app_id TEXT NOT NULL,
    -- Shortened (PushCore.DeviceToken.description): a log never holds a whole token.
    token TEXT NOT NULL,
    outcome TEXT NOT NULL CHECK (outcome IN ('delivered', 'retry', 'dead', 'pruned', 'kept')),
    -- The upstream reason, the retry time, or the apns-id / FCM message name.
    detail TEXT,
    source TEXT
) STRICT;
