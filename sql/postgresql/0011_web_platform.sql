-- 0011_web_platform: Web Push as a third platform, and every APNs push type.
-- The same meaning as sql/0011_web_platform.sql (see its comment): 'web' as a platform of
-- apps, devices and Beams instances; a web app's VAPID key and subject; every APNs push type;
-- a Web Push half of a queued push; apps.app_key dropped. PostgreSQL changes the constraints in
-- place.
ALTER TABLE apps DROP COLUMN app_key;
ALTER TABLE apps ADD COLUMN web_vapid_private_key_pem TEXT COLLATE "C";
ALTER TABLE apps ADD COLUMN web_vapid_subject TEXT COLLATE "C";
ALTER TABLE apps DROP CONSTRAINT apps_platform_check;
ALTER TABLE apps ADD CONSTRAINT apps_platform_check CHECK (platform IN ('apns', 'fcm', 'web'));
ALTER TABLE apps DROP CONSTRAINT apps_apns_push_type_check;
ALTER TABLE apps ADD CONSTRAINT apps_apns_push_type_check CHECK (apns_push_type IN ('alert', 'background',
    'location', 'voip', 'complication', 'fileprovider', 'mdm', 'liveactivity', 'pushtotalk', 'widgets', 'controls'));
ALTER TABLE apps DROP CONSTRAINT apps_check;
ALTER TABLE apps ADD CONSTRAINT apps_check CHECK (
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
);

ALTER TABLE devices DROP CONSTRAINT devices_platform_check;
ALTER TABLE devices ADD CONSTRAINT devices_platform_check CHECK (platform IN ('apns', 'fcm', 'web'));

ALTER TABLE beams_instances DROP CONSTRAINT beams_instances_platform_check;
ALTER TABLE beams_instances ADD CONSTRAINT beams_instances_platform_check CHECK (platform IN ('apns', 'fcm', 'web'));

ALTER TABLE outbox_payloads ADD COLUMN web_payload BYTEA;
ALTER TABLE outbox_payloads ADD COLUMN web_ttl BIGINT CHECK (web_ttl >= 0);
ALTER TABLE outbox_payloads ADD COLUMN web_urgency TEXT COLLATE "C"
    CHECK (web_urgency IN ('very-low', 'low', 'normal', 'high'));
ALTER TABLE outbox_payloads ADD COLUMN web_topic TEXT COLLATE "C";
ALTER TABLE outbox_payloads DROP CONSTRAINT outbox_payloads_apns_push_type_check;
ALTER TABLE outbox_payloads ADD CONSTRAINT outbox_payloads_apns_push_type_check CHECK (apns_push_type IN ('alert',
    'background', 'location', 'voip', 'complication', 'fileprovider', 'mdm', 'liveactivity', 'pushtotalk', 'widgets',
    'controls'));
ALTER TABLE outbox_payloads DROP CONSTRAINT outbox_payloads_check;
ALTER TABLE outbox_payloads ADD CONSTRAINT outbox_payloads_check
    CHECK (apns_payload IS NOT NULL OR fcm_message IS NOT NULL OR web_payload IS NOT NULL);
ALTER TABLE outbox_payloads ADD CONSTRAINT outbox_payloads_web_check
    CHECK ((web_payload IS NULL AND web_ttl IS NULL AND web_urgency IS NULL AND web_topic IS NULL)
        OR (web_payload IS NOT NULL AND web_ttl IS NOT NULL));
