-- 0004_beams_instances: one Pusher Beams instance serves an APNs app and an FCM app together.
--
-- A Beams instance id (`app_key`) is one id for a product's iOS and Android apps: both SDKs
-- start with it and register their clients under it with their own platform_type, and a
-- publish to it carries an `apns` and an `fcm` half. Until now apps.app_key was UNIQUE, so a
-- key named one app of one platform.
--
-- What this migration means, in engine-neutral terms:
-- * A new table beams_instances holds one row per (app_key, platform): the app that serves
--   that platform's clients under that key. At most one app per platform behind a key (the
--   primary key), at most one key per app (app_id UNIQUE); the row goes with its app
--   (ON DELETE CASCADE). platform repeats apps.platform so that the primary key can promise
--   "one app per platform"; the store rewrites the row whenever it writes the app.
-- * Every existing apps.app_key is copied into it under its app's platform, then set to
--   NULL: from here on apps.app_key is neither read nor written (its UNIQUE would refuse the
--   second app of a key, and dropping it in SQLite means rebuilding apps, whose foreign keys
--   would cascade-delete every Beams client). An engine that can drop the column may.
-- * Nothing else changes: devices, clients and interests stay as they are, each client
--   under the app it registered with.
CREATE TABLE beams_instances (
    app_key TEXT NOT NULL,
    platform TEXT NOT NULL CHECK (platform IN ('apns', 'fcm')),
    app_id TEXT NOT NULL UNIQUE REFERENCES apps (id) ON DELETE CASCADE,
    PRIMARY KEY (app_key, platform)
) STRICT, WITHOUT ROWID;

INSERT INTO beams_instances (app_key, platform, app_id)
SELECT app_key, platform, id FROM apps WHERE app_key IS NOT NULL;

UPDATE apps SET app_key = NULL WHERE app_key IS NOT NULL;
