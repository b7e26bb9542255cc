-- 0012_beams_users: the Beams device API's metadata and authenticated users, and the
-- secrets of sender keys that verify Beams tokens.
-- (The PostgreSQL twin of sql/0012_beams_users.sql: the same columns and meaning; see its
-- comment.)
ALTER TABLE beams_clients ADD COLUMN user_id TEXT COLLATE "C";
ALTER TABLE beams_clients ADD COLUMN metadata TEXT COLLATE "C";
ALTER TABLE api_keys ADD COLUMN beams_secret TEXT COLLATE "C";

CREATE INDEX beams_clients_user ON beams_clients (user_id, app_id) WHERE user_id IS NOT NULL;
