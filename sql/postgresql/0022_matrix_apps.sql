-- 0022_matrix_apps: which apps the Matrix push gateway may push to; every app starts closed.
-- (The PostgreSQL twin of sql/0022_matrix_apps.sql: same column and meaning.)
ALTER TABLE apps ADD COLUMN matrix BIGINT NOT NULL DEFAULT 0 CHECK (matrix IN (0, 1));
