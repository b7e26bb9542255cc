-- 0007_outbox_nodes: which node holds each claimed outbox row.
--
-- Several `pushgate serve` nodes may drain one outbox (on PostgreSQL). A claim now records
-- the claiming node's id (PUSHGATE_NODE_ID) beside its lease end, so that operators see which
-- node holds what (`pushgate outbox`), and a node that starts again takes back at once the
-- rows it died holding, without touching a live node's rows. NULL while the row is not
-- claimed, and for rows claimed before this migration (they come back when their lease ends).
-- A lease that ran out leaves its node's id until the next claim overwrites it.
ALTER TABLE outbox ADD COLUMN claimed_by TEXT;
