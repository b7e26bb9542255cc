-- 0020_operator_keys_send_nothing: a key made with `pushgate keys add NAME --operator` alone
-- reads /metrics and /status and sends nothing.
--
-- Until now such a key was stored with app_scope and dialect_scope NULL, which 0009 defined
-- as every app and every dialect: it sent through every dialect and verified Beams user
-- tokens for every instance, whatever docs/security.md said. An empty list ('') is a scope
-- that reaches nothing: `keys add --operator` stores it from now on, and this statement gives
-- it to the operator keys made before. A key made with --operator and --app or --dialect
-- keeps what its options said: it reads the pages and sends within that scope.
UPDATE api_keys SET app_scope = '', dialect_scope = ''
WHERE is_operator <> 0 AND app_scope IS NULL AND dialect_scope IS NULL;
