-- 0021_database_sizes: the database's size, one sample an hour, for its growth over the last
-- day. (The PostgreSQL twin of sql/0021_database_sizes.sql: same table and meaning.)
CREATE TABLE database_sizes (
    taken_at BIGINT PRIMARY KEY NOT NULL CHECK (taken_at % 3600 = 0),
    bytes BIGINT NOT NULL
);
