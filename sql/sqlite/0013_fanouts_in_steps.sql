-- 0013_fanouts_in_steps: a Beams publish to interests is queued in steps.
--
-- Until now a publish queued one outbox row per subscribed device in its own transaction:
-- at 1,000,000 subscribers that one INSERT took 4 s and more, and the publisher waited for
-- all of it. Now the publish stores its payload and a row here, queues the first step of
-- subscriptions in the same transaction and answers; the outbox worker queues the rest a
-- step at a time (one transaction each), when its backlog runs low. The row is the
-- fan-out's durable cursor: after a crash or restart the queueing goes on where the last
-- committed step left it, and a step either queued its devices and moved the cursor or did
-- neither. A device subscribed through several interests (or several clients) is queued
-- once: each step skips devices the payload already has a row for.
--
-- One interest at a time, in the order the publish named them, through the
-- beams_interests_interest index (interest, client_id): after_client is the last client id
-- of the interest at interest_index already queued ('' before the first).
CREATE TABLE outbox_fanouts (
    payload_id INTEGER PRIMARY KEY REFERENCES outbox_payloads (id) ON DELETE CASCADE,
    -- JSON arrays of the apps whose clients receive it and of the interests.
    app_ids TEXT NOT NULL CHECK (json_type(app_ids) = 'array'),
    interests TEXT NOT NULL CHECK (json_type(interests) = 'array'),
    interest_index INTEGER NOT NULL DEFAULT 0 CHECK (interest_index >= 0),
    after_client TEXT NOT NULL DEFAULT '',
    -- Unix ms: the oldest fan-out goes on first.
    created_at INTEGER NOT NULL
) STRICT;
CREATE INDEX outbox_fanouts_age ON outbox_fanouts (created_at, payload_id);
