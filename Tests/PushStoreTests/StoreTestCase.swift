import Foundation
import PushCore
import XCTest

@testable import PushStore

/// Base of the store tests: a fresh temporary directory (and so database) per test, and the
/// repository's real migrations.
class StoreTestCase: XCTestCase {
    /// The repository's `sql/`, found from this file: Tests/PushStoreTests/ → ../../sql.
    static let sqlDirectory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("sql", isDirectory: true)

    private(set) var directory: URL!
    var databasePath: String { directory.appendingPathComponent("test.sqlite").path }

    override func setUpWithError() throws {
        try super.setUpWithError()
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("pushstore-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        if let directory {
            try? FileManager.default.removeItem(at: directory)
        }
        try super.tearDownWithError()
    }

    /// A store on this test's database, migrated.
    func makeStore(clock: @escaping @Sendable () -> Int64 = { 1_700_000_000 }) throws -> SQLiteStore {
        let store = try SQLiteStore(path: databasePath, clock: clock)
        try store.migrate(directory: Self.sqlDirectory)
        return store
    }

    /// A second, raw connection to this test's database, for looking behind the store.
    func openDatabase() throws -> Database {
        try Database(path: databasePath)
    }

    func count(_ table: String, in database: Database) throws -> Int64 {
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

/// A value shared between test threads.
final class Locked<Value>: @unchecked Sendable {
    private var value: Value
    private let lock = NSLock()

    init(_ value: Value) { self.value = value }

    func withValue<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
