-- 0005_report_in_one_call: nothing changes in SQLite.
--
-- On PostgreSQL this migration adds a server-side function that runs a Token Reporter report
-- (the statements of SQLStore.saveAccountTokens) in one call, because there every statement
-- is a round trip to the server. SQLite runs in pushgate's own process, where a statement
-- costs no round trip, so the report stays the Swift code it was. The migration exists here
-- so that both engines keep the same list of numbered migrations.
SELECT 1;
