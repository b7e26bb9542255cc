-- 0019_reports_to_the_day: nothing changes in SQLite.
--
-- A Token Reporter report now writes a device only when it changes it: with another
-- spelling, or on a later day (UTC) than the day of its updated_at, which retention reads to
-- the day and 0010 indexed. On SQLite that is Swift code (SQLStore.writeReportStatements,
-- DeviceTable.reportChanges); on PostgreSQL this migration rewrites the report functions of
-- 0005 and 0014 alike. The migration exists here so that both engines keep the same list of
-- numbered migrations.
SELECT 1;
