-- 0022_matrix_apps: which apps the Matrix push gateway may push to.
--
-- A homeserver's users choose the app_id, pushkey and payload of their own pushers, and a
-- notify carries no credential: an app reachable from /_matrix/push/v1/notify can be pushed
-- to by every user of every allowed homeserver. So an operator opens each app to Matrix
-- (`pushgate apps add … --matrix`), and every app starts closed, those registered before
-- this migration included: the notify rejects a closed app's pushkeys as it does an unknown
-- app_id's.
ALTER TABLE apps ADD COLUMN matrix INTEGER NOT NULL DEFAULT 0 CHECK (matrix IN (0, 1));
