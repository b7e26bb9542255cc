-- 0011_web_platform: Web Push as a third platform, and every APNs push type.
--
-- What this migration means, in engine-neutral terms:
-- * apps.platform, devices.platform and beams_instances.platform may be 'web': a browser's
--   push subscription is a device of a web app, delivered through Web Push (RFC 8030).
-- * A web app's credentials are a VAPID key (an EC P-256 private key, PEM) and the contact
--   URL (`mailto:` or `https:`) its VAPID tokens name as `sub`: the columns
--   web_vapid_private_key_pem and web_vapid_subject. The credentials CHECK gains a third
--   branch: a web app has both and nothing of APNs or FCM; APNs and FCM apps have neither.
-- * apps.apns_push_type and outbox_payloads.apns_push_type accept every type APNs has:
--   alert, background, location, voip, complication, fileprovider, mdm, liveactivity,
--   pushtotalk, widgets, controls.
-- * A queued push may carry a Web Push half: web_payload (the plaintext, encrypted per
--   message at delivery), web_ttl (seconds, required with a payload), web_urgency
--   (very-low, low, normal, high) and web_topic. A payload row needs at least one half.
-- * apps.app_key (unused since 0004) is dropped where the engine rebuilds the table.
--
-- SQLite cannot change a CHECK in place, so the four tables are rebuilt as its documentation
-- describes (create, copy, drop, rename, recreate the indexes). The Migrator runs every
-- migration with foreign keys off and checks them before it commits: dropping `apps` with
-- foreign keys on would cascade into every Beams client.

CREATE TABLE apps_0011 (
    id TEXT PRIMARY KEY NOT NULL,
    platform TEXT NOT NULL CHECK (platform IN ('apns', 'fcm', 'web')),
    apns_team_id TEXT,
    apns_key_id TEXT,
    apns_private_key_pem TEXT,
    apns_certificate_pem TEXT,
    apns_certificate_key_pem TEXT,
    fcm_service_account_json TEXT,
    fcm_project_id TEXT,
    apns_topic TEXT,
    apns_push_type TEXT CHECK (apns_push_type IN ('alert', 'background', 'location', 'voip', 'complication',
        'fileprovider', 'mdm', 'liveactivity', 'pushtotalk', 'widgets', 'controls')),
    sandbox INTEGER NOT NULL DEFAULT 0 CHECK (sandbox IN (0, 1)),
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    -- Last, where PostgreSQL's ALTER TABLE puts them: both engines list columns alike.
    web_vapid_private_key_pem TEXT,
    web_vapid_subject TEXT,
    CHECK (
        (platform = 'apns'
            AND fcm_service_account_json IS NULL AND fcm_project_id IS NULL
            AND web_vapid_private_key_pem IS NULL AND web_vapid_subject IS NULL
            AND ((apns_team_id IS NOT NULL AND apns_key_id IS NOT NULL AND apns_private_key_pem IS NOT NULL
                    AND apns_certificate_pem IS NULL AND apns_certificate_key_pem IS NULL)
                OR (apns_certificate_pem IS NOT NULL AND apns_certificate_key_pem IS NOT NULL
                    AND apns_team_id IS NULL AND apns_key_id IS NULL AND apns_private_key_pem IS NULL)))
        OR (platform = 'fcm'
            AND fcm_service_account_json IS NOT NULL AND fcm_project_id IS NOT NULL
            AND web_vapid_private_key_pem IS NULL AND web_vapid_subject IS NULL
            AND apns_team_id IS NULL AND apns_key_id IS NULL AND apns_private_key_pem IS NULL
            AND apns_certificate_pem IS NULL AND apns_certificate_key_pem IS NULL)
        OR (platform = 'web'
            AND web_vapid_private_key_pem IS NOT NULL AND web_vapid_subject IS NOT NULL
            AND fcm_service_account_json IS NULL AND fcm_project_id IS NULL
            AND apns_team_id IS NULL AND apns_key_id IS NULL AND apns_private_key_pem IS NULL
            AND apns_certificate_pem IS NULL AND apns_certificate_key_pem IS NULL)
    )
) STRICT;

INSERT INTO apps_0011 (id, platform, apns_team_id, apns_key_id, apns_private_key_pem, apns_certificate_pem,
    apns_certificate_key_pem, fcm_service_account_json, fcm_project_id, apns_topic, apns_push_type, sandbox,
    created_at, updated_at)
SELECT id, platform, apns_team_id, apns_key_id, apns_private_key_pem, apns_certificate_pem,
    apns_certificate_key_pem, fcm_service_account_json, fcm_project_id, apns_topic, apns_push_type, sandbox,
    created_at, updated_at
FROM apps;

DROP TABLE apps;
ALTER TABLE apps_0011 RENAME TO apps;

CREATE TABLE devices_0011 (
    id INTEGER PRIMARY KEY,
    app_id TEXT NOT NULL,
    token BLOB NOT NULL CHECK (length(token) > 0),
    reported_token TEXT NOT NULL,
    platform TEXT CHECK (platform IN ('apns', 'fcm', 'web')),
    sandbox INTEGER CHECK (sandbox IN (0, 1)),
    apns_topic TEXT,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    last_outcome TEXT,
    last_outcome_at INTEGER,
    UNIQUE (app_id, token)
) STRICT;

INSERT INTO devices_0011 (id, app_id, token, reported_token, platform, sandbox, apns_topic, created_at, updated_at,
    last_outcome, last_outcome_at)
SELECT id, app_id, token, reported_token, platform, sandbox, apns_topic, created_at, updated_at,
    last_outcome, last_outcome_at
FROM devices;

DROP TABLE devices;
ALTER TABLE devices_0011 RENAME TO devices;
CREATE INDEX devices_updated ON devices (updated_at);
CREATE INDEX devices_unregistered ON devices (updated_at) WHERE platform IS NULL;

CREATE TABLE beams_instances_0011 (
    app_key TEXT NOT NULL,
    platform TEXT NOT NULL CHECK (platform IN ('apns', 'fcm', 'web')),
    app_id TEXT NOT NULL UNIQUE REFERENCES apps (id) ON DELETE CASCADE,
    PRIMARY KEY (app_key, platform)
) STRICT, WITHOUT ROWID;

INSERT INTO beams_instances_0011 (app_key, platform, app_id) SELECT app_key, platform, app_id FROM beams_instances;

DROP TABLE beams_instances;
ALTER TABLE beams_instances_0011 RENAME TO beams_instances;

CREATE TABLE outbox_payloads_0011 (
    id INTEGER PRIMARY KEY,
    source TEXT NOT NULL,
    apns_payload BLOB,
    apns_push_type TEXT CHECK (apns_push_type IN ('alert', 'background', 'location', 'voip', 'complication',
        'fileprovider', 'mdm', 'liveactivity', 'pushtotalk', 'widgets', 'controls')),
    apns_priority INTEGER,
    apns_topic TEXT,
    apns_expiration INTEGER,
    apns_collapse_id TEXT,
    apns_id TEXT,
    fcm_message TEXT CHECK (fcm_message IS NULL OR json_type(fcm_message) = 'object'),
    created_at INTEGER NOT NULL,
    web_payload BLOB,
    web_ttl INTEGER CHECK (web_ttl >= 0),
    web_urgency TEXT CHECK (web_urgency IN ('very-low', 'low', 'normal', 'high')),
    web_topic TEXT,
    CHECK (apns_payload IS NOT NULL OR fcm_message IS NOT NULL OR web_payload IS NOT NULL),
    CHECK (apns_payload IS NOT NULL OR (apns_push_type IS NULL AND apns_priority IS NULL AND apns_topic IS NULL
        AND apns_expiration IS NULL AND apns_collapse_id IS NULL AND apns_id IS NULL)),
    CHECK ((web_payload IS NULL AND web_ttl IS NULL AND web_urgency IS NULL AND web_topic IS NULL)
        OR (web_payload IS NOT NULL AND web_ttl IS NOT NULL))
) STRICT;

INSERT INTO outbox_payloads_0011 (id, source, apns_payload, apns_push_type, apns_priority, apns_topic,
    apns_expiration, apns_collapse_id, apns_id, fcm_message, created_at)
SELECT id, source, apns_payload, apns_push_type, apns_priority, apns_topic,
    apns_expiration, apns_collapse_id, apns_id, fcm_message, created_at
FROM outbox_payloads;

DROP TABLE outbox_payloads;
ALTER TABLE outbox_payloads_0011 RENAME TO outbox_payloads;
