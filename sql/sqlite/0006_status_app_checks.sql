-- 0006_status_app_checks: the last `pushgate apps check` of each app, for the status page.
--
-- What an operator asks first about an app whose pushes stopped: did its credentials work the
-- last time anybody proved them? `apps check` runs in its own process, so the answer is kept
-- here: when it ran, whether APNs or Google accepted the credentials, and what was said.
-- One row per app, replaced by each check, gone with its app.
CREATE TABLE app_checks (
    app_id TEXT PRIMARY KEY NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
    -- Unix seconds.
    checked_at INTEGER NOT NULL,
    ok INTEGER NOT NULL CHECK (ok IN (0, 1)),
    -- The check's own words ("ok: APNs accepted …", "APNs refused the credentials …").
    detail TEXT NOT NULL
) STRICT, WITHOUT ROWID;
