import Foundation
import PushCore
import XCTest

@testable import PushStore

/// Dead tokens: the device goes once, with every dialect's link and every queued push, unless
/// it was re-registered after the token died.
final class OutboxPruningTests: OutboxTestCase {
    func testPruningDeletesTheDeviceOnce() throws {
        let store = try makeStore()
        let ids = try makeDevices(store, count: 2)
        XCTAssertTrue(try store.pruneDevice(id: ids[0], deadSince: nil))
        XCTAssertFalse(try store.pruneDevice(id: ids[0], deadSince: nil), "the second report prunes nothing")
        XCTAssertEqual(try store.devices().map(\.id), [ids[1]])
    }

    /// updated_at is in seconds (1_700_000_000 in `makeStore`), APNs' timestamp in ms.
    func testPruningRespectsARegistrationAfterTheTokenDied() throws {
        let store = try makeStore()
        let ids = try makeDevices(store, count: 1)
        let reportedAt: Int64 = 1_700_000_000_000
        XCTAssertFalse(try store.pruneDevice(id: ids[0], deadSince: reportedAt - 1_000), "re-registered a second after")
        XCTAssertFalse(try store.pruneDevice(id: ids[0], deadSince: reportedAt - 1), "re-registered a second after")
        XCTAssertEqual(try store.devices().count, 1)
        // Dead within the second of the report: cannot be told apart, pruned (see DeviceTable).
        XCTAssertTrue(try store.pruneDevice(id: ids[0], deadSince: reportedAt + 999))
        XCTAssertEqual(try store.devices().count, 0)
    }

    func testPruningAfterTheReportDeletes() throws {
        let store = try makeStore()
        let ids = try makeDevices(store, count: 1)
        XCTAssertTrue(try store.pruneDevice(id: ids[0], deadSince: 1_700_000_005_000))
    }

    func testPruningCascadesToTheLinksOfEveryDialectAndToQueuedPushes() throws {
        let store = try makeStore()
        try store.addApp(Fixture.fcmApp, replacing: true)
        let ids = try makeDevices(store, count: 2)
        let (doomed, survivor) = (ids[0], ids[1])
        let database = try openDatabase()
        // Every owner table of 0001 links both devices (their own stores come with their
        // dialects; the rows are written directly here).
        try database.execute(
            """
            INSERT INTO users (id, name, password_hash, created_at) VALUES ('u1', 'alice', 'x', 0);
            INSERT INTO user_devices (user_id, device_id) VALUES ('u1', \(doomed)), ('u1', \(survivor));
            INSERT INTO beams_clients (id, app_id, device_id, created_at, updated_at)
                VALUES ('c1', '\(Fixture.fcmAppID.rawValue)', \(doomed), 0, 0),
                       ('c2', '\(Fixture.fcmAppID.rawValue)', \(survivor), 0, 0);
            INSERT INTO beams_interests (client_id, interest) VALUES ('c1', 'news'), ('c2', 'news');
            INSERT INTO bridge_subscriptions (device_id, topic_selector, created_at)
                VALUES (\(doomed), 'a/b', 0), (\(survivor), 'a/b', 0);
            """)
        _ = try store.enqueue(Outbox.message, deviceIDs: ids)
        _ = try store.enqueue(Outbox.message, deviceIDs: [doomed])

        XCTAssertTrue(try store.pruneDevice(id: doomed, deadSince: nil))

        for (table, column) in [
            ("acrobits_accounts", "device_id"), ("user_devices", "device_id"), ("beams_clients", "device_id"),
            ("bridge_subscriptions", "device_id"), ("outbox", "device_id"),
        ] {
            XCTAssertEqual(try rows(table, column, doomed, in: database), 0, "\(table) still links the pruned device")
            XCTAssertEqual(try rows(table, column, survivor, in: database), 1, "\(table) lost the other device's link")
        }
        XCTAssertEqual(try count("beams_interests", in: database), 1, "the pruned client's interests cascade")
        XCTAssertEqual(try count("users", in: database), 1, "the owner itself stays")
    }

    /// The worker's path: a dead-token outcome prunes in the completing transaction.
    func testADeadTokenOutcomePrunesTheDeviceAndItsOtherQueuedPushes() throws {
        let store = try makeStore()
        let ids = try makeDevices(store, count: 2)
        _ = try store.enqueue(Outbox.message, deviceIDs: ids)
        _ = try store.enqueue(Outbox.message, deviceIDs: [ids[0]])
        let claimed = try store.claimDue(limit: 2, now: Outbox.storeNow, lease: 30_000)
        XCTAssertEqual(claimed.map(\.notification.deviceID), ids)

        try store.complete(
            [(claimed[0], .deadToken(reason: "Unregistered", since: nil)), (claimed[1], .delivered(id: nil))],
            now: Outbox.storeNow)

        XCTAssertEqual(try store.devices().map(\.id), [ids[1]])
        XCTAssertEqual(try store.pendingCount(), 0, "the device's second push went with it")
        let database = try openDatabase()
        XCTAssertEqual(try count("outbox_payloads", in: database), 0, "and both payloads with their last rows")
        XCTAssertEqual(try store.deliveryLog(limit: 10).map(\.kind), [.delivered, .pruned])
        XCTAssertEqual(try store.deliveryLog(limit: 10).last?.detail, "Unregistered")
    }

    func testADeadTokenOfADeviceReRegisteredSinceKeepsTheDevice() throws {
        let store = try makeStore()
        let ids = try makeDevices(store, count: 1)
        _ = try store.enqueue(Outbox.message, deviceIDs: ids)
        let row = try XCTUnwrap(try store.claimDue(limit: 1, now: Outbox.storeNow, lease: 30_000).first)
        // APNs says the token died an hour before the device last reported it.
        try store.complete(
            [(row, .deadToken(reason: "Unregistered", since: Outbox.storeNow - 3_600_000))], now: Outbox.storeNow)
        XCTAssertEqual(try store.devices().map(\.id), ids)
        XCTAssertEqual(try store.pendingCount(), 0, "this push is over all the same")
        XCTAssertEqual(try store.deliveryLog(limit: 1).map(\.kind), [.kept])
    }

    private func rows(_ table: String, _ column: String, _ id: Int64, in database: some SQLConnection) throws -> Int64 {
        // Names come from the test itself.
        try database.withStatement("SELECT count(*) FROM \(table) WHERE \(column) = ?") {
            try $0.bind(id, at: 1)
            _ = try $0.step()
            return $0.int64(0)
        }
    }
}
