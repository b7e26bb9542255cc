import PushTesting
import Foundation
import PushCore
import XCTest

@testable import PushStore

/// Every store protocol, as the tests drive a store of either engine.
typealias StoreUnderTest = PushgateStore

/// Base of the store tests: a fresh database per test, migrated by the migrations built into
/// PushStore (BuiltInMigrationsTests holds them equal to the files they are built from).
///
/// One suite, two engines: SQLite (a fresh temporary directory per test) by default, or
/// PostgreSQL when `PUSHGATE_TEST_DATABASE_URL` names a server (a fresh schema per test,
/// dropped afterwards; `scripts/test` starts a throwaway server and runs the suite again).
/// Tests of SQLite's own machinery (its connection, WAL, group-commit writer, migration
/// files) call `try requireSQLite()` and are skipped on PostgreSQL.
class StoreTestCase: XCTestCase, RunsOnPostgreSQL {
    /// SQLite's migration files, found from this file: Tests/PushStoreTests/ → ../../sql/sqlite.
    static let sqlDirectory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("sql/sqlite", isDirectory: true)
    /// PostgreSQL's twins of `sqlDirectory`'s.
    static let postgreSQLDirectory = sqlDirectory.deletingLastPathComponent()
        .appendingPathComponent("postgresql", isDirectory: true)

    /// The PostgreSQL server to test on, if any.
    static let postgreSQLURL: String? = {
        let url = ProcessInfo.processInfo.environment["PUSHGATE_TEST_DATABASE_URL"] ?? ""
        return url.isEmpty ? nil : url
    }()
    static var engine: SQLEngine { postgreSQLURL == nil ? .sqlite : .postgresql }

    private(set) var directory: URL!
    var databasePath: String { directory.appendingPathComponent("test.sqlite").path }
    /// This test's schema on PostgreSQL.
    private(set) var schema: String?

    override func setUpWithError() throws {
        try super.setUpWithError()
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("pushstore-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        if let url = Self.postgreSQLURL {
            let schema = "test_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
            try PostgreSQLConnection(configuration: PostgreSQLConfiguration(url: url))
                .execute("CREATE SCHEMA \(PostgreSQLConnection.quoteIdentifier(schema))")
            self.schema = schema
        }
    }

    override func tearDownWithError() throws {
        if let directory {
            try? FileManager.default.removeItem(at: directory)
        }
        if let url = Self.postgreSQLURL, let schema {
            try PostgreSQLConnection(configuration: PostgreSQLConfiguration(url: url))
                .execute("DROP SCHEMA \(PostgreSQLConnection.quoteIdentifier(schema)) CASCADE")
        }
        try super.tearDownWithError()
    }

    /// The SQL of the engine the suite runs on, for the few statements a test spells per engine.
    func sql(sqlite: String, postgresql: String) -> String {
        Self.engine == .sqlite ? sqlite : postgresql
    }

    /// Skips a test of SQLite's own machinery when the suite runs on PostgreSQL.
    func requireSQLite(_ reason: String = "tests SQLite's own machinery") throws {
        try XCTSkipIf(Self.engine != .sqlite, reason)
    }

    /// How this test's store connects to PostgreSQL.
    var postgreSQLConfiguration: PostgreSQLConfiguration? {
        Self.postgreSQLURL.map { PostgreSQLConfiguration(url: $0, schema: schema) }
    }

    /// A store on this test's database, migrated, on the engine the suite runs on.
    func makeStore(clock: @escaping @Sendable () -> Int64 = { 1_700_000_000 }) throws -> any StoreUnderTest {
        if let configuration = postgreSQLConfiguration {
            let store = PostgreSQLStore(configuration: configuration, clock: clock)
            try store.migrate()
            return store
        }
        return try makeSQLiteStore(clock: clock)
    }

    /// A SQLite store on this test's database, migrated, for the tests of SQLite's machinery.
    func makeSQLiteStore(clock: @escaping @Sendable () -> Int64 = { 1_700_000_000 }) throws -> SQLiteStore {
        let store = try SQLiteStore(path: databasePath, clock: clock)
        try store.migrate()
        return store
    }

    /// A second, raw connection to this test's database, for looking behind the store. Its
    /// SQL uses SQLite's placeholders on either engine.
    func openDatabase() throws -> any SQLConnection {
        if let configuration = postgreSQLConfiguration {
            return try PostgreSQLConnection(configuration: configuration)
        }
        return try Database(path: databasePath)
    }

    /// A raw PostgreSQL connection to a migrated store that knows `Fixture.apnsApp`, for the
    /// tests of PostgreSQL's own machinery (its functions and plans); skips on SQLite.
    func openPostgreSQLDatabaseWithAPNsApp() throws -> PostgreSQLConnection {
        try XCTSkipIf(Self.engine != .postgresql, "needs PUSHGATE_TEST_DATABASE_URL")
        let store = try makeStore()
        try store.addApp(Fixture.apnsApp, replacing: false)
        return try XCTUnwrap(try openDatabase() as? PostgreSQLConnection)
    }

    /// A database on the engine under test as an older pushgate left it: migrated up to
    /// `version` only, with `rows` (SQL in the engine's own spelling) run on it, then migrated
    /// the rest of the way. Returns the migrations that last step applied, and a raw connection
    /// to look at the result with.
    func databaseMigrated(
        past version: Int, after rows: (SQLEngine) -> String
    ) throws -> (applied: [String], database: any SQLConnection) {
        if let configuration = postgreSQLConfiguration {
            // The migrations up to `version` from a directory of their own, then all of them.
            let older = directory.appendingPathComponent("migrations-\(version)")
            try FileManager.default.createDirectory(at: older, withIntermediateDirectories: true)
            for migration in try Migrator.migrations(in: Self.postgreSQLDirectory) where migration.version <= version {
                try FileManager.default.copyItem(
                    at: Self.postgreSQLDirectory.appendingPathComponent(migration.fileName),
                    to: older.appendingPathComponent(migration.fileName))
            }
            let store = PostgreSQLStore(configuration: configuration)
            _ = try store.migrate(directory: older)
            let connection = try PostgreSQLConnection(configuration: configuration)
            try connection.execute(rows(.postgresql))
            return (try store.migrate(directory: Self.postgreSQLDirectory), connection)
        }
        let sqlite = try openSQLiteDatabase()
        let all = try Migration.builtIn(for: .sqlite)
        try Migrator.migrate(database: sqlite, migrations: all.filter { $0.version <= version })
        try sqlite.execute(rows(.sqlite))
        return (try Migrator.migrate(database: sqlite, migrations: all), sqlite)
    }

    /// A raw SQLite connection, for the tests of SQLite's machinery.
    func openSQLiteDatabase() throws -> Database {
        try Database(path: databasePath)
    }

    /// Makes the database refuse, with the error "refused by test", every new row of
    /// `acrobits_accounts` whose `column` is `value`: a trigger named `name` on either engine
    /// (drop it with `DROP TRIGGER name`, on PostgreSQL `DROP TRIGGER name ON acrobits_accounts`).
    func refuseAccountLinks(named name: String, where column: String, is value: String, in database: some SQLConnection)
        throws
    {
        // Names and values come from the tests themselves, never from input.
        try database.execute(
            sql(
                sqlite: """
                    CREATE TRIGGER \(name) BEFORE INSERT ON acrobits_accounts WHEN NEW.\(column) = '\(value)'
                    BEGIN SELECT RAISE(ABORT, 'refused by test'); END
                    """,
                postgresql: """
                    CREATE FUNCTION \(name)() RETURNS trigger LANGUAGE plpgsql AS $$
                    BEGIN
                        IF NEW.\(column) = '\(value)' THEN RAISE EXCEPTION 'refused by test'; END IF;
                        RETURN NEW;
                    END $$;
                    CREATE TRIGGER \(name) BEFORE INSERT ON acrobits_accounts
                        FOR EACH ROW EXECUTE FUNCTION \(name)();
                    """))
    }

    /// From now on, counts every row inserted, updated or deleted in `tables` (`rowWrites`):
    /// triggers on either engine, which fire for an UPDATE that sets a row to the values it
    /// had too, so that a count of 0 says no statement wrote a row of them.
    func countRowWrites(of tables: [String], in database: some SQLConnection) throws {
        // Table names come from the tests themselves, never from input.
        try database.execute("CREATE TABLE test_row_writes (written TEXT NOT NULL)")
        if Self.engine == .postgresql {
            try database.execute(
                """
                CREATE FUNCTION test_count_row_write() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN
                    INSERT INTO test_row_writes (written) VALUES (TG_TABLE_NAME || ' ' || TG_OP);
                    RETURN NULL;
                END $$
                """)
        }
        for table in tables {
            for operation in ["INSERT", "UPDATE", "DELETE"] {
                let name = "test_count_\(table)_\(operation.lowercased())"
                try database.execute(
                    sql(
                        sqlite: """
                            CREATE TRIGGER \(name) AFTER \(operation) ON \(table)
                            BEGIN INSERT INTO test_row_writes (written) VALUES ('\(table) \(operation)'); END
                            """,
                        postgresql: """
                            CREATE TRIGGER \(name) AFTER \(operation) ON \(table)
                                FOR EACH ROW EXECUTE FUNCTION test_count_row_write()
                            """))
            }
        }
    }

    /// The rows written since `countRowWrites`, as `table OPERATION`, sorted.
    func rowWrites(in database: some SQLConnection) throws -> [String] {
        try database.withStatement("SELECT written FROM test_row_writes ORDER BY written") { row in
            var writes: [String] = []
            while try row.step() { writes.append(row.string(0) ?? "") }
            return writes
        }
    }

    func count(_ table: String, in database: some SQLConnection) throws -> Int64 {
        // Table names come from the tests themselves, never from input.
        try database.withStatement("SELECT count(*) FROM \(table)") { row in
            _ = try row.step()
            return row.int64(0)
        }
    }
}

/// Values the store tests share.
enum Fixture {
    static let apnsAppID = AppID("com.example.phone")!
    static let fcmAppID = AppID("com.example.android")!

    static let apnsApp = RegisteredApp(
        id: apnsAppID,
        credentials: .apnsToken(
            teamID: "TEAM123456", keyID: "KEY1234567", privateKeyPEM: "-----BEGIN PRIVATE KEY-----"),
        apnsTopic: "com.example.phone", apnsPushType: .alert, sandbox: true, appKey: nil)

    static let fcmApp = RegisteredApp(
        id: fcmAppID, credentials: .fcmServiceAccount(json: "{\"type\":\"service_account\"}", projectID: "example"),
        appKey: "beams-key-1")

    /// A 32-byte APNs token filled with `seed`.
    static func apnsToken(_ seed: UInt8) -> DeviceToken {
        DeviceToken(bytes: Array(repeating: seed, count: 32))
    }

    static func channelToken(_ channel: AcrobitsChannel, seed: UInt8, app: AppID = apnsAppID) -> ChannelToken {
        let token = apnsToken(seed)
        return ChannelToken(channel: channel, appID: app, token: token, reportedToken: token.base64)
    }
}


/// Whether `error` is a constraint's refusal, in either engine's error type.
func isConstraintViolation(_ error: Error) -> Bool {
    if let error = error as? DatabaseError { return error.isConstraintViolation }
    if let error = error as? PostgreSQLError { return error.isConstraintViolation }
    return false
}
