-- 0008_reports_together: nothing changes in SQLite.
--
-- On PostgreSQL this migration adds a function that runs several Token Reporter reports in
-- one call and one transaction, the way SQLite's group-commit writer runs the reports that
-- arrive together in one transaction. SQLite has that writer already. The migration exists
-- here so that both engines keep the same list of numbered migrations.
SELECT 1;
