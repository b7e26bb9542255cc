import Foundation
import PushCore
import XCTest

@testable import PushStore

/// Outcomes and corrected APNs environments written back to devices.
final class DeviceDeliveryRecordTests: OutboxTestCase {
    func testOutcomesAndTheSandboxAreWrittenBackToTheirDevices() throws {
        let store = try makeStore()
        let ids = try makeDevices(store, count: 2)
        try store.recordOutcomes([(ids[0], "delivered"), (ids[1], "rejected (400): BadTopic"), (9_999, "x")], now: 42)
        try store.setSandbox(true, deviceID: ids[1])
        let devices = Dictionary(uniqueKeysWithValues: try store.devices().map { ($0.id, $0) })
        XCTAssertEqual(devices[ids[0]]?.lastOutcome, "delivered")
        XCTAssertEqual(devices[ids[0]]?.lastOutcomeAt, 42)
        XCTAssertEqual(devices[ids[1]]?.lastOutcome, "rejected (400): BadTopic")
        XCTAssertNil(devices[ids[0]]?.sandbox)
        XCTAssertEqual(devices[ids[1]]?.sandbox, true)
        XCTAssertEqual(devices[ids[1]]?.updatedAt, devices[ids[0]]?.updatedAt, "not a re-registration")
    }

    /// A batch's outcomes are written a summary at a time on SQLite: whatever the grouping,
    /// each device ends with the last summary listed for it and the batch's time, over an
    /// outcome it had before.
    func testADeviceListedTwiceKeepsItsLastOutcome() throws {
        let store = try makeStore()
        let ids = try makeDevices(store, count: 3)
        try store.recordOutcomes(ids.map { ($0, "delivered") }, now: 40)
        try store.recordOutcomes(
            [
                (ids[0], "given up: BadTopic"), (ids[1], "delivered"), (ids[0], "delivered"),
                (ids[2], "delivered"), (ids[1], "not delivered, retrying: TooManyRequests"),
            ], now: 42)
        let devices = Dictionary(uniqueKeysWithValues: try store.devices().map { ($0.id, $0) })
        XCTAssertEqual(devices[ids[0]]?.lastOutcome, "delivered")
        XCTAssertEqual(devices[ids[1]]?.lastOutcome, "not delivered, retrying: TooManyRequests")
        XCTAssertEqual(devices[ids[2]]?.lastOutcome, "delivered")
        XCTAssertEqual(ids.map { devices[$0]?.lastOutcomeAt }, [42, 42, 42])
        XCTAssertEqual(try count("device_outcomes", in: try openDatabase()), 3)
    }

    func testTheOutboxRecordsEachOutcomeOnItsDevice() throws {
        let store = try makeStore()
        let ids = try makeDevices(store, count: 4)
        _ = try store.enqueue(Outbox.message, deviceIDs: ids)
        let claimed = try store.claimDue(limit: 10, now: Outbox.storeNow, lease: 30_000)
        try store.complete(
            [
                (claimed[0], .delivered(id: "apns-1")),
                (claimed[1], .retry(at: Outbox.storeNow + 5_000, error: "ServiceUnavailable")),
                (claimed[2], .dead(error: "BadTopic")),
                (claimed[3], .deadToken(reason: "Unregistered", since: nil)),
            ], now: Outbox.storeNow + 1_000)
        let devices = Dictionary(uniqueKeysWithValues: try store.devices().map { ($0.id, $0) })
        XCTAssertEqual(devices[ids[0]]?.lastOutcome, "delivered")
        XCTAssertEqual(devices[ids[0]]?.lastOutcomeAt, (Outbox.storeNow + 1_000) / 1000, "seconds, like every device time")
        XCTAssertEqual(devices[ids[1]]?.lastOutcome, "not delivered, retrying: ServiceUnavailable")
        XCTAssertEqual(devices[ids[2]]?.lastOutcome, "given up: BadTopic")
        XCTAssertNil(devices[ids[3]], "a dead token's device is gone")
    }

    /// Outcomes live in a table of their own (migration 0016): a device that goes takes its
    /// outcome with it, whichever way it goes, so that no outcome outlives its device (and
    /// none is shown for another device given the same id later).
    func testADeviceThatGoesTakesItsOutcomeWithIt() throws {
        let store = try makeStore()
        let ids = try makeDevices(store, count: 3)
        try store.recordOutcomes(ids.map { ($0, "delivered") }, now: 42)
        let database = try openDatabase()
        XCTAssertEqual(try count("device_outcomes", in: database), 3)

        // Deleted on its own (a prune, an unregistration)…
        try database.withStatement("DELETE FROM devices WHERE id = ?1") { statement in
            try statement.bind(ids[0], at: 1)
            try statement.run()
        }
        XCTAssertEqual(try count("device_outcomes", in: database), 2)
        XCTAssertEqual(try store.lastOutcomeCounts(since: 0), ["delivered": 2])
        // …and with the rest, expired by housekeeping (the store's clock is 1,700,000,000).
        let policy = RetentionPolicy(deviceDays: 1, deadLetterDays: 1)
        let removed = try store.removeExpired(policy, now: 1_700_000_000 + 2 * RetentionPolicy.day, limit: 100)
        XCTAssertEqual(removed.devices, 2)
        XCTAssertEqual(try count("device_outcomes", in: database), 0)
        XCTAssertEqual(try store.lastOutcomeCounts(since: 0), [:])
    }
}
