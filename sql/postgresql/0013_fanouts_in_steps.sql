-- 0013_fanouts_in_steps: a Beams publish to interests is queued in steps.
-- (The PostgreSQL twin of sql/0013_fanouts_in_steps.sql: the same table and meaning; see its
-- comment. Nodes take a fan-out's next step with FOR UPDATE SKIP LOCKED: one node at a time
-- moves a cursor, other nodes take the next fan-out or deliver.)
CREATE TABLE outbox_fanouts (
    payload_id BIGINT PRIMARY KEY REFERENCES outbox_payloads (id) ON DELETE CASCADE,
    app_ids TEXT COLLATE "C" NOT NULL CHECK (json_typeof(CAST(app_ids AS json)) = 'array'),
    interests TEXT COLLATE "C" NOT NULL CHECK (json_typeof(CAST(interests AS json)) = 'array'),
    interest_index BIGINT NOT NULL DEFAULT 0 CHECK (interest_index >= 0),
    after_client TEXT COLLATE "C" NOT NULL DEFAULT '',
    created_at BIGINT NOT NULL
);
CREATE INDEX outbox_fanouts_age ON outbox_fanouts (created_at, payload_id);
