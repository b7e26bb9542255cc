-- 0020_operator_keys_send_nothing: a key made with `keys add NAME --operator` alone sends
-- nothing (see sql/0020_operator_keys_send_nothing.sql: the same statement and meaning).
UPDATE api_keys SET app_scope = '', dialect_scope = ''
WHERE is_operator <> 0 AND app_scope IS NULL AND dialect_scope IS NULL;
