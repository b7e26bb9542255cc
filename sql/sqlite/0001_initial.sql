-- 0001_initial: one store for all five dialects.
--
-- Shipped migrations are never edited: change the schema in a new numbered file.
-- The Migrator runs this file in one transaction and records it in schema_migrations.
--
-- Conventions:
-- * STRICT tables, so a wrong type is an error instead of a silently stored surprise.
-- * Times are unix seconds (INTEGER); booleans are INTEGER 0/1 with a CHECK.
-- * Every dialect's owner row links to `devices` with ON DELETE CASCADE: when a token is
--   dead upstream the delivery code deletes the one device row, and every link to it goes
--   with it. The other direction (a device no owner links to any more) is the store's job:
--   it deletes such devices in the same transaction that removed the last link.
-- * Link tables are WITHOUT ROWID: they are looked up by their primary key only, so
--   clustering the rows on it saves the second b-tree a rowid table would need.
-- * Every column that references devices(id) has an index leading with it: the cascade
--   and the store's "has this device any owner left?" check both search by it.

-- Apps an operator registered: what a client names as AppId / application_id / appid, and
-- the Pusher Beams app_key. Credentials are columns rather than one blob so that the CHECK
-- below can promise each row holds exactly one complete kind of credential.
CREATE TABLE apps (
    id TEXT PRIMARY KEY NOT NULL,
    platform TEXT NOT NULL CHECK (platform IN ('apns', 'fcm')),
    -- APNs token-based auth (.p8 key).
    apns_team_id TEXT,
    apns_key_id TEXT,
    apns_private_key_pem TEXT,
    -- APNs certificate-based auth.
    apns_certificate_pem TEXT,
    apns_certificate_key_pem TEXT,
    -- FCM HTTP v1: the service account's JSON file as given, and the project it sends for.
    fcm_service_account_json TEXT,
    fcm_project_id TEXT,
    apns_topic TEXT,
    apns_push_type TEXT CHECK (apns_push_type IN ('alert', 'voip', 'background')),
    sandbox INTEGER NOT NULL DEFAULT 0 CHECK (sandbox IN (0, 1)),
    -- UNIQUE allows many NULLs: only Beams apps have a key.
    app_key TEXT UNIQUE,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    CHECK (
        (platform = 'apns'
            AND fcm_service_account_json IS NULL AND fcm_project_id IS NULL
            AND ((apns_team_id IS NOT NULL AND apns_key_id IS NOT NULL AND apns_private_key_pem IS NOT NULL
                    AND apns_certificate_pem IS NULL AND apns_certificate_key_pem IS NULL)
                OR (apns_certificate_pem IS NOT NULL AND apns_certificate_key_pem IS NOT NULL
                    AND apns_team_id IS NULL AND apns_key_id IS NULL AND apns_private_key_pem IS NULL)))
        OR (platform = 'fcm'
            AND fcm_service_account_json IS NOT NULL AND fcm_project_id IS NOT NULL
            AND apns_team_id IS NULL AND apns_key_id IS NULL AND apns_private_key_pem IS NULL
            AND apns_certificate_pem IS NULL AND apns_certificate_key_pem IS NULL)
    )
) STRICT;

-- One row per (app, canonical token), whichever dialect reported it.
--
-- app_id is deliberately NOT a foreign key: phones report tokens for apps the operator has
-- not registered yet (or removed and will add back), and those reports must not be lost.
-- platform stays NULL until an app of that id is known; the store sets it when the app is
-- added and clears it when the app is removed.
CREATE TABLE devices (
    id INTEGER PRIMARY KEY,
    app_id TEXT NOT NULL,
    -- The canonical bytes of PushCore.DeviceToken: raw APNs bytes, or an FCM token's UTF-8
    -- text. Comparing bytes is what lets hex, base64 and apns:// spellings meet.
    token BLOB NOT NULL CHECK (length(token) > 0),
    -- The token exactly as the client last sent it, for operators.
    reported_token TEXT NOT NULL,
    platform TEXT CHECK (platform IN ('apns', 'fcm')),
    -- NULL: follow the app's default.
    sandbox INTEGER CHECK (sandbox IN (0, 1)),
    -- Per-device APNs topic override (cospace sends its own bundle id); NULL: the app's.
    apns_topic TEXT,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    -- What the last delivery attempt found (delivered, dead, rejected: …), for operators.
    last_outcome TEXT,
    last_outcome_at INTEGER,
    -- Also serves every "devices of app X" lookup (its leading column).
    UNIQUE (app_id, token)
) STRICT;

-- Acrobits accounts (Token Reporter, pnm2): each selector has up to two channels, each
-- channel pushes to one device. The selector is the account's stable id in the app;
-- username is informative only.
CREATE TABLE acrobits_accounts (
    selector TEXT NOT NULL,
    channel TEXT NOT NULL CHECK (channel IN ('calls', 'msgs')),
    username TEXT,
    device_id INTEGER NOT NULL REFERENCES devices (id) ON DELETE CASCADE,
    updated_at INTEGER NOT NULL,
    PRIMARY KEY (selector, channel)
) STRICT, WITHOUT ROWID;

CREATE INDEX acrobits_accounts_device ON acrobits_accounts (device_id);

-- cospace users: they log in with HTTP Basic and own the devices they registered.
CREATE TABLE users (
    -- A UUID string: cospace push events name the user (`owner`) by UUID.
    id TEXT PRIMARY KEY NOT NULL,
    name TEXT NOT NULL UNIQUE,
    -- A slow KDF's self-describing output (PushCrypto), never the password.
    password_hash TEXT NOT NULL,
    created_at INTEGER NOT NULL
) STRICT;

CREATE TABLE user_devices (
    user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    device_id INTEGER NOT NULL REFERENCES devices (id) ON DELETE CASCADE,
    PRIMARY KEY (user_id, device_id)
) STRICT, WITHOUT ROWID;

CREATE INDEX user_devices_device ON user_devices (device_id);

-- Pusher Beams: a client (one app install) registers one device and subscribes interests.
-- Unlike devices, a Beams client only exists within a registered app (its app_key is how
-- it found us), so here app_id IS a foreign key: removing the app removes its clients.
CREATE TABLE beams_clients (
    id TEXT PRIMARY KEY NOT NULL,
    app_id TEXT NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
    device_id INTEGER NOT NULL REFERENCES devices (id) ON DELETE CASCADE,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
) STRICT;

CREATE INDEX beams_clients_app ON beams_clients (app_id);
CREATE INDEX beams_clients_device ON beams_clients (device_id);

CREATE TABLE beams_interests (
    client_id TEXT NOT NULL REFERENCES beams_clients (id) ON DELETE CASCADE,
    interest TEXT NOT NULL,
    PRIMARY KEY (client_id, interest)
) STRICT, WITHOUT ROWID;

-- Publishing fans out by interest: find its clients without touching the primary key.
CREATE INDEX beams_interests_interest ON beams_interests (interest, client_id);

-- Diffusion push bridge: a device subscribes to topic selectors (pnsub / pnunsub).
CREATE TABLE bridge_subscriptions (
    device_id INTEGER NOT NULL REFERENCES devices (id) ON DELETE CASCADE,
    topic_selector TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    -- Its leading column also serves the cascade and the owner check.
    PRIMARY KEY (device_id, topic_selector)
) STRICT, WITHOUT ROWID;

-- Publishing to a topic finds its subscribers.
CREATE INDEX bridge_subscriptions_topic ON bridge_subscriptions (topic_selector);

-- Keys that senders (PBX scripts, backends) present. Only a hash is stored; a revoked key
-- is kept (revoked_at set) so operators can still see which key a sender used.
CREATE TABLE api_keys (
    name TEXT PRIMARY KEY NOT NULL,
    key_hash TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    revoked_at INTEGER
) STRICT;
