import Foundation
import PushCore
import XCTest

@testable import PushStore

/// The aggregates behind `/metrics` and `/status`, on both engines.
final class OperationsStatusStoreTests: OutboxTestCase {
    func testAnEmptyStoreSummarizesToNothing() throws {
        let store = try makeStore()
        XCTAssertEqual(
            try store.outboxSummary(now: Outbox.storeNow),
            OutboxSummary(queued: 0, retrying: 0, dead: 0, due: 0, oldestDueAt: nil))
        XCTAssertEqual(try store.deviceCounts(), [])
        XCTAssertEqual(try store.deliveryLogCounts(since: 0), [:])
        XCTAssertEqual(try store.lastOutcomeCounts(since: 0), [:])
        XCTAssertEqual(try store.lastProblems(limit: 10), [])
    }

    func testTheOutboxByStateAndItsMostOverdueRow() throws {
        let store = try makeStore()
        let ids = try makeDevices(store, count: 3)
        XCTAssertEqual(try store.enqueue(Outbox.message, deviceIDs: ids), 3)
        XCTAssertEqual(
            try store.outboxSummary(now: Outbox.storeNow),
            OutboxSummary(queued: 3, retrying: 0, dead: 0, due: 3, oldestDueAt: Outbox.storeNow))
        XCTAssertEqual(
            try store.outboxSummary(now: Outbox.storeNow - 1),
            OutboxSummary(queued: 3, retrying: 0, dead: 0, due: 0, oldestDueAt: nil), "not due before its time")

        let claimed = try store.claimDue(limit: 2, now: Outbox.storeNow, lease: 30_000)
        XCTAssertEqual(claimed.count, 2)
        try store.complete(
            [
                (claimed[0], .retry(at: Outbox.storeNow + 5_000, error: "ServiceUnavailable")),
                (claimed[1], .dead(error: "rejected (400): BadTopic")),
            ], now: Outbox.storeNow + 100)
        XCTAssertEqual(
            try store.outboxSummary(now: Outbox.storeNow + 100),
            OutboxSummary(queued: 1, retrying: 1, dead: 1, due: 1, oldestDueAt: Outbox.storeNow))
        XCTAssertEqual(
            try store.outboxSummary(now: Outbox.storeNow + 6_000),
            OutboxSummary(queued: 1, retrying: 1, dead: 1, due: 2, oldestDueAt: Outbox.storeNow),
            "the retry is due too; the oldest due is still the one never tried")
        XCTAssertEqual(try store.deliveryLogCounts(since: Outbox.storeNow), ["retry": 1, "dead": 1])
        XCTAssertEqual(try store.deliveryLogCounts(since: Outbox.storeNow + 101), [:], "older entries are left out")
    }

    func testDevicesPerAppAndPlatform() throws {
        let store = try makeStore()
        _ = try makeDevices(store, count: 3)
        // A token reported for an app nobody registered: no platform yet.
        try store.saveAccountTokens(
            selector: "unregistered", username: nil,
            tokens: [
                ChannelToken(
                    channel: .msgs, appID: AppID("com.example.unknown")!, token: Fixture.apnsToken(9),
                    reportedToken: "x")
            ])
        XCTAssertEqual(
            try store.deviceCounts(),
            [
                DeviceCount(appID: Fixture.apnsAppID.rawValue, platform: .apns, count: 3),
                DeviceCount(appID: "com.example.unknown", platform: nil, count: 1),
            ])
    }

    func testLastOutcomesAndEachAppsNewestProblem() throws {
        let store = try makeStore()
        let ids = try makeDevices(store, count: 4)
        try store.recordOutcomes([(ids[0], "delivered"), (ids[1], "rejected (400): BadTopic")], now: 1_000)
        try store.recordOutcomes(
            [(ids[2], "not delivered, retrying: ServiceUnavailable"), (ids[3], "delivered")], now: 2_000)
        XCTAssertEqual(
            try store.lastOutcomeCounts(since: 1_000),
            ["delivered": 2, "rejected (400): BadTopic": 1, "not delivered, retrying: ServiceUnavailable": 1])
        XCTAssertEqual(
            try store.lastOutcomeCounts(since: 1_500),
            ["delivered": 1, "not delivered, retrying: ServiceUnavailable": 1])
        XCTAssertEqual(
            try store.lastProblems(limit: 10),
            [
                AppProblem(
                    appID: Fixture.apnsAppID.rawValue, outcome: "not delivered, retrying: ServiceUnavailable", at: 2_000
                )
            ],
            "one per app: its newest")
    }

    func testEachAppKeepsItsLastCheckUntilItIsRemoved() throws {
        let store = try makeStore()
        try store.addApp(Fixture.apnsApp, replacing: true)
        XCTAssertEqual(try store.appChecks(), [])
        let refused = AppCheckRecord(
            appID: Fixture.apnsAppID, checkedAt: 1_000, ok: false,
            detail: "APNs refused the credentials: InvalidProviderToken")
        try store.recordAppCheck(refused)
        XCTAssertEqual(try store.appChecks(), [refused])
        let accepted = AppCheckRecord(appID: Fixture.apnsAppID, checkedAt: 2_000, ok: true, detail: "accepted")
        try store.recordAppCheck(accepted)
        XCTAssertEqual(try store.appChecks(), [accepted], "the last check replaces the one before")
        XCTAssertTrue(try store.removeApp(id: Fixture.apnsAppID))
        XCTAssertEqual(try store.appChecks(), [], "gone with its app")
    }
}
