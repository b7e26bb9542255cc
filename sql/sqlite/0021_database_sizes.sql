-- 0021_database_sizes: the database's size, one sample an hour, so that /status and
-- `pushgate doctor` can say how much it grew over the last day.
--
-- Anyone can write to the client-side APIs: an operator should see the growth before the
-- disk fills. `serve` measures the size once an hour (SQLite: the file and its WAL;
-- PostgreSQL: pg_database_size) and keeps it here rather than in its memory, so the growth is
-- known to doctor (a process of its own), to a restarted serve, and the same on every node.
-- A sample's time is rounded down to its hour: the nodes that sample in one hour write one
-- row (the first one's; the others' INSERT does nothing). Samples older than two days go
-- with each new one.
CREATE TABLE database_sizes (
    -- Unix seconds, the start of the hour the sample was taken in.
    taken_at INTEGER PRIMARY KEY NOT NULL CHECK (taken_at % 3600 = 0),
    bytes INTEGER NOT NULL
) STRICT;
