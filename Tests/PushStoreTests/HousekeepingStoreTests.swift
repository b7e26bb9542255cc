import Foundation
import PushCore
import XCTest

@testable import PushStore

/// Housekeeping's deletes on the real schema, on either engine, with the store's clock and
/// housekeeping's `now` set by the test.
final class HousekeepingStoreTests: StoreTestCase {
    static let start: Int64 = 1_700_000_000
    static let day = RetentionPolicy.day
    let policy = RetentionPolicy(deviceDays: 270, deadLetterDays: 14)

    /// A store whose clock the test moves.
    func store(at clock: Locked<Int64>) throws -> any StoreUnderTest {
        let store = try makeStore(clock: { clock.withLock { $0 } })
        try store.addApp(Fixture.apnsApp, replacing: false)
        return store
    }

    func selectors(_ store: any StoreUnderTest) throws -> [String] {
        try store.devices().flatMap { device in
            device.owners.compactMap { owner -> String? in
                if case .acrobitsAccount(let selector, _, _) = owner { return selector }
                return nil
            }
        }.sorted()
    }

    func testDevicesPastTheRetentionGoWithTheirLinksAndATouchedDeviceStays() throws {
        let clock = Locked(Self.start)
        let store = try store(at: clock)
        try store.saveAccountTokens(
            selector: "old-account-000000", username: nil, tokens: [Fixture.channelToken(.calls, seed: 1)])
        try store.saveAccountTokens(
            selector: "kept-account-00000", username: nil, tokens: [Fixture.channelToken(.calls, seed: 2)])
        XCTAssertTrue(
            try store.subscribe(appID: Fixture.apnsAppID, token: Fixture.apnsToken(1), reportedToken: "r", selector: ">a"))
        _ = try store.enqueue(Outbox.message, deviceIDs: try store.devices().map(\.id))

        // 271 days on, the second account reports again (the same token): its device is touched.
        let later = Self.start + 271 * Self.day
        clock.withLock { $0 = later }
        try store.saveAccountTokens(
            selector: "kept-account-00000", username: nil, tokens: [Fixture.channelToken(.calls, seed: 2)])

        let removed = try store.removeExpired(policy, now: later, limit: 100)
        XCTAssertEqual(removed, HousekeepingCounts(devices: 1))
        XCTAssertEqual(try store.devices().map(\.token), [Fixture.apnsToken(2)])
        XCTAssertEqual(try selectors(store), ["kept-account-00000"], "the expired device's account link went with it")
        let database = try openDatabase()
        XCTAssertEqual(try count("bridge_subscriptions", in: database), 0, "and its subscription")
        XCTAssertEqual(try count("outbox", in: database), 1, "and its queued push; the kept device's stays")
        XCTAssertEqual(try store.removeExpired(policy, now: later, limit: 100), HousekeepingCounts(), "nothing twice")
    }

    /// A device records a report to the day (the same report again that day writes nothing):
    /// it stays until the retention has passed since the end of the day it last reported in,
    /// so never less than the retention after its last report, at most a day more.
    func testADeviceStaysForTheRetentionAfterTheEndOfItsLastDay() throws {
        let clock = Locked(Self.start)
        let store = try store(at: clock)
        let token = Fixture.channelToken(.msgs, seed: 3)
        try store.saveAccountTokens(selector: "edge-account-00000", username: nil, tokens: [token])
        let dayEnd = (Self.start / Self.day + 1) * Self.day
        clock.withLock { $0 = dayEnd - 1 }  // the same report at the day's last second: not written
        try store.saveAccountTokens(selector: "edge-account-00000", username: nil, tokens: [token])
        XCTAssertEqual(try store.devices().map(\.updatedAt), [Self.start])

        for now in [Self.start + 270 * Self.day + 1, dayEnd - 1 + 270 * Self.day, dayEnd + 270 * Self.day - 1] {
            XCTAssertEqual(try store.removeExpired(policy, now: now, limit: 100), HousekeepingCounts(), "at \(now)")
        }
        XCTAssertEqual(try store.devices().count, 1)
        XCTAssertEqual(
            try store.removeExpired(policy, now: dayEnd + 270 * Self.day, limit: 100), HousekeepingCounts(devices: 1))
    }

    /// A device reported again on a later day moves on: its retention starts over from that day.
    func testADeviceReportedOnALaterDayStartsItsRetentionOver() throws {
        let clock = Locked(Self.start)
        let store = try store(at: clock)
        let token = Fixture.channelToken(.msgs, seed: 3)
        try store.saveAccountTokens(selector: "edge-account-00000", username: nil, tokens: [token])
        let later = Self.start + 100 * Self.day
        clock.withLock { $0 = later }
        try store.saveAccountTokens(selector: "edge-account-00000", username: nil, tokens: [token])
        XCTAssertEqual(try store.devices().map(\.updatedAt), [later])
        XCTAssertEqual(try store.removeExpired(policy, now: Self.start + 300 * Self.day, limit: 100), HousekeepingCounts())
        XCTAssertEqual(
            try store.removeExpired(policy, now: later + 271 * Self.day, limit: 100), HousekeepingCounts(devices: 1))
    }

    func testDevicesOfAppsNeverRegisteredGoAfterSevenDays() throws {
        let clock = Locked(Self.start)
        let store = try store(at: clock)
        let unknownApp = AppID("com.example.unknown")!
        try store.saveAccountTokens(
            selector: "stray-account-0000", username: nil,
            tokens: [Fixture.channelToken(.msgs, seed: 4, app: unknownApp)])
        try store.saveAccountTokens(
            selector: "known-account-0000", username: nil, tokens: [Fixture.channelToken(.msgs, seed: 5)])

        XCTAssertEqual(try store.removeExpired(policy, now: Self.start + 7 * Self.day, limit: 100), HousekeepingCounts())
        let removed = try store.removeExpired(policy, now: Self.start + 8 * Self.day, limit: 100)
        XCTAssertEqual(removed, HousekeepingCounts(unregisteredAppDevices: 1))
        XCTAssertEqual(try store.devices().map(\.appID), [Fixture.apnsAppID], "the registered app's device stays")
    }

    func testDeadLettersGoAfterTheirRetentionWithTheirPayloads() throws {
        let clock = Locked(Self.start)
        let store = try store(at: clock)
        try store.saveAccountTokens(
            selector: "dead-letter-000000", username: nil,
            tokens: [Fixture.channelToken(.calls, seed: 6), Fixture.channelToken(.msgs, seed: 7)])
        let ids = try store.devices().map(\.id)
        _ = try store.enqueue(Outbox.message, deviceIDs: [ids[0]])
        let now = Self.start * 1000
        let first = try store.claimDue(limit: 10, now: now, lease: 30_000)
        try store.complete([(first[0], .dead(error: "BadTopic"))], now: now)
        // The second dies ten days later.
        clock.withLock { $0 = Self.start + 10 * Self.day }
        _ = try store.enqueue(Outbox.message, deviceIDs: [ids[1]])
        let later = now + 10 * Self.day * 1000
        let second = try store.claimDue(limit: 10, now: later, lease: 30_000)
        try store.complete([(second[0], .dead(error: "BadTopic"))], now: later)
        XCTAssertEqual(try store.deadLetters(limit: 10).count, 2)

        let removed = try store.removeExpired(policy, now: Self.start + 15 * Self.day, limit: 100)
        XCTAssertEqual(removed, HousekeepingCounts(deadLetters: 1))
        XCTAssertEqual(try store.deadLetters(limit: 10).map(\.deviceID), [ids[1]])
        XCTAssertEqual(try store.deleteUnusedPayloads(), 1, "the first dead letter's payload is nobody's now")
        XCTAssertEqual(try store.devices().count, 2, "dead letters go, their devices stay")
    }

    func testEachCallRemovesAtMostOneBatch() throws {
        let clock = Locked(Self.start)
        let store = try store(at: clock)
        for seed in UInt8(10)..<15 {
            try store.saveAccountTokens(
                selector: "batch-account-\(seed)-0000", username: nil, tokens: [Fixture.channelToken(.msgs, seed: seed)])
        }
        let now = Self.start + 300 * Self.day
        XCTAssertEqual(try store.removeExpired(policy, now: now, limit: 2).devices, 2)
        XCTAssertEqual(try store.removeExpired(policy, now: now, limit: 2).devices, 2)
        XCTAssertEqual(try store.removeExpired(policy, now: now, limit: 2).devices, 1)
        XCTAssertEqual(try store.devices().count, 0)
    }

    func testOneClaimPerIntervalAndTheRunsAreRecorded() throws {
        let store = try makeStore()
        XCTAssertEqual(try store.housekeepingReport().lastRunAt, nil)
        XCTAssertTrue(try store.claimHousekeepingRun(now: Self.start, interval: 3600))
        XCTAssertFalse(try store.claimHousekeepingRun(now: Self.start + 10, interval: 3600), "another node's turn is taken")
        XCTAssertTrue(try store.claimHousekeepingRun(now: Self.start + 3600, interval: 3600))

        try store.recordHousekeepingRun(HousekeepingCounts(devices: 3, unregisteredAppDevices: 1, deadLetters: 2), at: Self.start)
        try store.recordHousekeepingRun(HousekeepingCounts(devices: 1), at: Self.start + 3600)
        XCTAssertEqual(
            try store.housekeepingReport(),
            HousekeepingReport(
                lastRunAt: Self.start + 3600, lastRun: HousekeepingCounts(devices: 1),
                total: HousekeepingCounts(devices: 4, unregisteredAppDevices: 1, deadLetters: 2)))
    }
}
