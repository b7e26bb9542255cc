-- 0006_status_app_checks: the last `pushgate apps check` of each app, for the status page.
-- (The PostgreSQL twin of sql/0006_status_app_checks.sql: same table and meaning; see 0001 for
-- how the types are spelled here.)
CREATE TABLE app_checks (
    app_id TEXT COLLATE "C" PRIMARY KEY NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
    checked_at BIGINT NOT NULL,
    ok BIGINT NOT NULL CHECK (ok IN (0, 1)),
    detail TEXT NOT NULL
);
