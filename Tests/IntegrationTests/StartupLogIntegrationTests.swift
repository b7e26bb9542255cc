import Foundation
import PushTesting
import XCTest

/// What `serve` says about itself when it starts: the configuration file, the database and the
/// upstream endpoints in effect, with no secret in the log.
final class StartupLogIntegrationTests: XCTestCase {
    private var files: [URL] = []

    override func tearDown() {
        for file in files { try? FileManager.default.removeItem(at: file) }
        files = []
    }

    private func configurationFile(_ lines: [String]) throws -> URL {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("pushgate-startup-\(UUID().uuidString).conf")
        try (lines.joined(separator: "\n") + "\n").write(to: file, atomically: true, encoding: .utf8)
        files.append(file)
        return file
    }

    func testServeLogsTheFileDatabaseAndUpstreamsInEffect() throws {
        let file = try configurationFile([
            "PUSHGATE_APNS_URL = https://apns.example.invalid",
            "PUSHGATE_FCM_URL = https://fcm.example.invalid",
        ])
        let pushgate = try PushgateInstance(environment: ["PUSHGATE_CONFIG": file.path])
        defer { pushgate.stop() }
        try pushgate.start()
        try pushgate.waitForServeLog(containing: "configuration \(file.path), database ")
        let line = try XCTUnwrap(pushgate.serveLog.split(separator: "\n").first { $0.contains("configuration \(file.path)") })
        XCTAssertTrue(line.contains("APNs https://apns.example.invalid (sandbox https://api.sandbox.push.apple.com)"), String(line))
        XCTAssertTrue(line.contains("FCM https://fcm.example.invalid"), String(line))
        let database = pushgate.postgreSQLURL == nil ? pushgate.database : "PostgreSQL "
        XCTAssertTrue(line.contains("database \(database)"), String(line))
    }

    /// The start-up line and `pushgate config` show the database the same way: a password in
    /// the URI, in its user part or as a parameter, is never printed.
    func testADatabasePasswordIsNeverShown() throws {
        let pushgate = try PushgateInstance()
        try XCTSkipIf(pushgate.postgreSQLURL != nil, "the test run's own PUSHGATE_DATABASE_URL overrides the file's")
        // Every spelling libpq takes: the URI's user part and query (also percent-encoded),
        // and key=value with spaces and quotes.
        let spellings: [(String, String)] = [
            ("postgresql://pushgate:s3cret-one@db.example.invalid/pushgate?password=s3cret-two",
             "user=pushgate password=*** dbname=pushgate host=db.example.invalid"),
            ("postgresql://pushgate@db.example.invalid/pushgate?%70assword=s3cret-three",
             "user=pushgate password=*** dbname=pushgate host=db.example.invalid"),
            ("host=db.example.invalid user=pushgate password = 's3cret four' sslmode=verify-full",
             "user=pushgate password=*** host=db.example.invalid sslmode=verify-full"),
            ("host=db.example.invalid password='s3cret", "(a connection string libpq cannot parse; not shown)"),
        ]
        for (url, expected) in spellings {
            let file = try configurationFile(["PUSHGATE_DATABASE_URL = \(url)"])
            let shown = try pushgate.cli(["config", "get", "PUSHGATE_DATABASE_URL", "--config", file.path])
            XCTAssertEqual(shown.status, 0, shown.stderr)
            XCTAssertEqual(shown.stdout.trimmingCharacters(in: .whitespacesAndNewlines), expected, url)
            XCTAssertFalse(shown.stdout.contains("s3cret"), shown.stdout)
        }
    }
}
