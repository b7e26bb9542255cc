-- 0004_beams_instances: one Pusher Beams instance serves an APNs app and an FCM app together.
-- The same meaning as sql/0004_beams_instances.sql (see its comment): a table of one row per
-- (app_key, platform) naming the app that serves that platform's clients under the key, at
-- most one key per app, the row going with its app; every existing apps.app_key is copied
-- into it and then set to NULL, and apps.app_key is neither read nor written from here on.
CREATE TABLE beams_instances (
    app_key TEXT COLLATE "C" NOT NULL,
    platform TEXT COLLATE "C" NOT NULL CHECK (platform IN ('apns', 'fcm')),
    app_id TEXT COLLATE "C" NOT NULL UNIQUE REFERENCES apps (id) ON DELETE CASCADE,
    PRIMARY KEY (app_key, platform)
);

INSERT INTO beams_instances (app_key, platform, app_id)
SELECT app_key, platform, id FROM apps WHERE app_key IS NOT NULL;

UPDATE apps SET app_key = NULL WHERE app_key IS NOT NULL;
