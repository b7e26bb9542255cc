-- 0009_sender_key_scopes: what each sender key may reach.
-- (The PostgreSQL twin of sql/0009_sender_key_scopes.sql: the same columns and meaning; see
-- its comment.)
ALTER TABLE api_keys ADD COLUMN app_scope TEXT COLLATE "C";
ALTER TABLE api_keys ADD COLUMN dialect_scope TEXT COLLATE "C";
ALTER TABLE api_keys ADD COLUMN is_operator BIGINT NOT NULL DEFAULT 0;
