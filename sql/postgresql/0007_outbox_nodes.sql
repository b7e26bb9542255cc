-- 0007_outbox_nodes: which node holds each claimed outbox row.
-- (The PostgreSQL twin of sql/0007_outbox_nodes.sql: the same column and meaning; see its
-- comment. Below it, storage settings that only PostgreSQL has.)
ALTER TABLE outbox ADD COLUMN claimed_by TEXT COLLATE "C";

-- Autovacuum per table. The outbox tables are queues: every row is inserted, updated once or
-- twice (claimed, maybe retried) and deleted within seconds, so a fan-out of 100,000 devices
-- leaves 100,000+ dead row versions behind, and the claim's range scan of outbox_due walks
-- over every dead entry until vacuum removes it (the bloat known from other PostgreSQL
-- queues: river #59, que's and solid_queue's vacuum notes). The default trigger, 20% of the
-- table, waits far too long on a table that is often empty and sometimes huge: vacuum
-- (and analyze, so that the planner keeps choosing the index) after a fixed number of dead
-- rows instead, and let vacuum work without the default cost pauses on these small rows.
ALTER TABLE outbox SET (
    autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 5000,
    autovacuum_vacuum_insert_scale_factor = 0, autovacuum_vacuum_insert_threshold = 10000,
    autovacuum_analyze_scale_factor = 0, autovacuum_analyze_threshold = 5000,
    autovacuum_vacuum_cost_delay = 0);
-- One row per publish: fewer rows, the same churn.
ALTER TABLE outbox_payloads SET (
    autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 500, autovacuum_vacuum_cost_delay = 0);
-- The history is kept apart from the queue: appended to, and trimmed from its oldest end in
-- batches by the worker's housekeeping, so its dead rows come in runs of a batch.
ALTER TABLE delivery_log SET (
    autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 5000,
    autovacuum_vacuum_insert_scale_factor = 0, autovacuum_vacuum_insert_threshold = 20000,
    autovacuum_vacuum_cost_delay = 0);
