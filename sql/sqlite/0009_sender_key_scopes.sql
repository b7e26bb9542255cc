-- 0009_sender_key_scopes: what each sender key may reach.
--
-- app_scope: the app ids the key may push to, separated by single spaces (app ids never
-- hold a space), sorted; NULL reaches every app, as every key made before this migration
-- does. dialect_scope: the same for the send-side dialects (pnm2, cospace, beams, bridge).
-- is_operator: 1 when the key may read /metrics and /status; once such a key exists, those
-- pages need it, from loopback too.
ALTER TABLE api_keys ADD COLUMN app_scope TEXT;
ALTER TABLE api_keys ADD COLUMN dialect_scope TEXT;
ALTER TABLE api_keys ADD COLUMN is_operator INTEGER NOT NULL DEFAULT 0;
