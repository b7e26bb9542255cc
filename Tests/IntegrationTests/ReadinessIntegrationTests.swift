import Foundation
import PushTesting
import XCTest

/// `/readyz` through nginx: ready while the database answers with pushgate's schema, 503
/// while it does not (the reason, which may hold the database's error text, only in the log), ready again once it does, without a restart. `/healthz`
/// (liveness) stays 200 throughout.
final class ReadinessIntegrationTests: XCTestCase, RunsOnPostgreSQL {
    var pushgate: PushgateInstance!

    override func setUpWithError() throws {
        pushgate = try PushgateInstance()
        try pushgate.start()
    }

    override func tearDown() {
        pushgate.stop()
        pushgate = nil
    }

    func testReadyWhileTheDatabaseAnswersWithItsSchema() throws {
        let ready = try pushgate.client.get("/readyz")
        XCTAssertEqual(ready.status, 200, ready.text)
        XCTAssertEqual(ready.text.trimmingCharacters(in: .whitespacesAndNewlines), "ready")

        // The migration history gone: this database is not (or no longer) pushgate's.
        try pushgate.sql("ALTER TABLE schema_migrations RENAME TO schema_migrations_away")
        let notReady = try pushgate.client.get("/readyz")
        XCTAssertEqual(notReady.status, 503, notReady.text)
        XCTAssertEqual(notReady.text.trimmingCharacters(in: .whitespacesAndNewlines), "not ready")
        try pushgate.waitForServeLog(containing: "not ready: the database")
        XCTAssertEqual(notReady.header("Retry-After"), "5")
        XCTAssertEqual(try pushgate.client.get("/healthz").status, 200, "liveness does not ask the database")

        try pushgate.sql("ALTER TABLE schema_migrations_away RENAME TO schema_migrations")
        let again = try pushgate.client.get("/readyz")
        XCTAssertEqual(again.status, 200, again.text)
    }

    func testOnlyGetAndHead() throws {
        let post = try pushgate.client.request("POST", "/readyz", body: Array("x".utf8))
        XCTAssertEqual(post.status, 405, post.text)
        XCTAssertEqual(post.header("Allow"), "GET, HEAD")
    }
}
