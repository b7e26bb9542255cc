import Foundation
import PushCore
@testable import PushStore
import XCTest

/// One database that several in-process "nodes" share, each through a store of its own, as
/// nodes on several hosts share one PostgreSQL: a fresh schema on the server that
/// `PUSHGATE_TEST_DATABASE_URL` names, or a fresh SQLite file when it is unset (several
/// processes on one file, for the tests where that is enough). Migrated once.
final class SharedDatabase {
    typealias NodeStore = AppCatalog & OutboxStore & ProviderTokenArchive & DeviceDeliveryRecord & DevicePruning

    static var postgreSQLURL: String? {
        let url = ProcessInfo.processInfo.environment["PUSHGATE_TEST_DATABASE_URL"] ?? ""
        return url.isEmpty ? nil : url
    }

    private let postgreSQL: PostgreSQLConfiguration?
    private let directory: URL?
    private var sqlitePath: String? { directory?.appendingPathComponent("shared.sqlite").path }

    /// PostgreSQL when the environment names a server; otherwise SQLite unless `requirePostgreSQL`
    /// (then the test is skipped).
    init(requirePostgreSQL: Bool) throws {
        if let url = Self.postgreSQLURL {
            let schema = "test_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
            try PostgreSQLConnection(configuration: PostgreSQLConfiguration(url: url))
                .execute("CREATE SCHEMA \(PostgreSQLConnection.quoteIdentifier(schema))")
            postgreSQL = PostgreSQLConfiguration(url: url, schema: schema)
            directory = nil
            try PostgreSQLStore(configuration: postgreSQL!).migrate()
        } else {
            if requirePostgreSQL { throw XCTSkip("needs PostgreSQL: set PUSHGATE_TEST_DATABASE_URL") }
            postgreSQL = nil
            directory = FileManager.default.temporaryDirectory
                .appendingPathComponent("pushgate-shared-\(UUID().uuidString)", isDirectory: true)
            try FileManager.default.createDirectory(at: directory!, withIntermediateDirectories: true)
            try SQLiteStore(path: directory!.appendingPathComponent("shared.sqlite").path).migrate()
        }
    }

    var postgreSQLConfiguration: PostgreSQLConfiguration? { postgreSQL }

    /// A store of its own on the shared database: one node's.
    func makeStore() throws -> any NodeStore {
        if let postgreSQL { return PostgreSQLStore(configuration: postgreSQL) }
        return try SQLiteStore(path: sqlitePath!)
    }

    /// Runs SQL (SQLite's placeholders, none bound) behind the stores, on PostgreSQL.
    func execute(_ sql: String) throws {
        guard let postgreSQL else { throw XCTSkip("raw SQL is only written for PostgreSQL here") }
        try PostgreSQLConnection(configuration: postgreSQL).execute(sql)
    }

    /// `count` APNs devices of `app` with distinct tokens (1, 2, … as 32 bytes), written
    /// straight into the table (fast); returns their ids.
    func addDevices(count: Int, app: String) throws -> [Int64] {
        guard let postgreSQL else { throw XCTSkip("raw SQL is only written for PostgreSQL here") }
        let connection = try PostgreSQLConnection(configuration: postgreSQL)
        try connection.execute(
            """
            INSERT INTO devices (app_id, token, reported_token, platform, created_at, updated_at)
            SELECT '\(app)', decode(lpad(to_hex(i), 64, '0'), 'hex'), 'test', 'apns', 0, 0
            FROM generate_series(1, \(count)) AS i
            """)
        return try connection.withStatement("SELECT id FROM devices ORDER BY id") { row in
            var ids: [Int64] = []
            while try row.step() { ids.append(row.int64(0)) }
            return ids
        }
    }

    func drop() {
        if let postgreSQL, let schema = postgreSQL.schema {
            try? PostgreSQLConnection(configuration: PostgreSQLConfiguration(url: postgreSQL.url))
                .execute("DROP SCHEMA \(PostgreSQLConnection.quoteIdentifier(schema)) CASCADE")
        }
        if let directory { try? FileManager.default.removeItem(at: directory) }
    }
}
