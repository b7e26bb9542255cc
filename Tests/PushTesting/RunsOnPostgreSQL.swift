/// Marks a test class (and its subclasses) that runs twice in `scripts/test`: on SQLite, and
/// again on a throwaway PostgreSQL, with `PUSHGATE_TEST_DATABASE_URL` naming it. The class
/// declares it; `scripts/lib/postgresql-tests` reads the declarations and makes the second
/// pass's filter, so that whether a test covers both engines is said where the test is.
public protocol RunsOnPostgreSQL {}
