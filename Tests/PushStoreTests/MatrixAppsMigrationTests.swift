import Foundation
import PushCore
import XCTest

@testable import PushStore

/// Whether Matrix may push to an app is stored with it (migration 0022), on both engines: apps
/// registered before the migration are closed, `openToMatrix` reads back, and a replace gives
/// the app exactly the flag it is given.
final class MatrixAppsMigrationTests: StoreTestCase {
    private static let before = """
        INSERT INTO apps (id, platform, fcm_service_account_json, fcm_project_id, created_at, updated_at)
        VALUES ('com.example.older', 'fcm', '{}', 'p', 1, 1);
        """

    func testAppsRegisteredBeforeTheMigrationAreClosed() throws {
        let (applied, database) = try databaseMigrated(past: 21) { _ in Self.before }
        XCTAssertEqual(applied, ["0022_matrix_apps.sql"])
        let store = try makeStore()
        let flag = try database.withStatement("SELECT matrix FROM apps WHERE id = 'com.example.older'") { row in
            try row.step() ? row.int64(0) : -1
        }
        XCTAssertEqual(flag, 0, "an app registered before 0022 is closed to Matrix")
        XCTAssertEqual(try store.app(id: AppID("com.example.older")!)?.openToMatrix, false)
    }

    func testTheFlagReadsBackAndAReplaceSetsItAsGiven() throws {
        let store = try makeStore()
        var app = Fixture.apnsApp
        XCTAssertFalse(app.openToMatrix, "an app is closed unless opened")
        try store.addApp(app, replacing: false)
        XCTAssertEqual(try store.app(id: app.id)?.openToMatrix, false)

        app.openToMatrix = true
        try store.addApp(app, replacing: true)
        XCTAssertEqual(try store.app(id: app.id), app)
        XCTAssertEqual(try store.apps().map(\.openToMatrix), [true])

        app.openToMatrix = false
        try store.addApp(app, replacing: true)
        XCTAssertEqual(try store.app(id: app.id)?.openToMatrix, false, "a replace without the flag closes it")
    }
}
