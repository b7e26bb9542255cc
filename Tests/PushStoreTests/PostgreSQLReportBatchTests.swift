import Foundation
import PushCore
import XCTest

@testable import PushStore

/// PostgreSQL writes the Token Reporter reports of one moment in one call
/// (`pushgate_save_account_reports`): the batch as it reaches the server.
final class PostgreSQLReportBatchTests: StoreTestCase {
    private func makePostgreSQLStore() throws -> PostgreSQLStore {
        try XCTSkipIf(Self.engine != .postgresql, "needs PUSHGATE_TEST_DATABASE_URL")
        let store = try XCTUnwrap(try makeStore() as? PostgreSQLStore)
        try store.addApp(Fixture.apnsApp, replacing: false)
        return store
    }

    private func report(_ selector: String, username: String?, seeds: [UInt8], now: Int64 = 1_700_000_000)
        -> AccountReport
    {
        let channels: [AcrobitsChannel] = [.calls, .msgs]
        return AccountReport(
            selector: selector, username: username,
            tokens: zip(channels, seeds).map { Fixture.channelToken($0, seed: $1) }, now: now)
    }

    /// One batch, in the order given: a second report of one account overrides the first, a
    /// report without a username keeps the known one, and each report's time is its own (a
    /// device's time moves only with a new spelling or day, 0019).
    func testABatchWritesEveryReportInOrder() throws {
        let store = try makePostgreSQLStore()
        let outcomes = store.saveReports([
            report("alice", username: "a1", seeds: [1, 2]),
            report("bob", username: "b", seeds: [3], now: 1_700_000_005),
            report("alice", username: nil, seeds: [4, 2], now: 1_700_000_009),
            report("carol", username: #"quote " and \ backslash"#, seeds: [5]),
        ])
        XCTAssertEqual(outcomes.map { $0 == nil }, [true, true, true, true], "\(outcomes)")

        let devices = try store.devices()
        func owner(of seed: UInt8) -> [DeviceOwner]? {
            devices.first { $0.token == Fixture.apnsToken(seed) }?.owners
        }
        XCTAssertNil(owner(of: 1), "alice's calls moved from token 1 to 4, and token 1's device had no other owner")
        XCTAssertEqual(owner(of: 4), [.acrobitsAccount(selector: "alice", channel: .calls, username: "a1")])
        XCTAssertEqual(owner(of: 2), [.acrobitsAccount(selector: "alice", channel: .msgs, username: "a1")])
        XCTAssertEqual(owner(of: 3), [.acrobitsAccount(selector: "bob", channel: .calls, username: "b")])
        XCTAssertEqual(
            owner(of: 5), [.acrobitsAccount(selector: "carol", channel: .calls, username: #"quote " and \ backslash"#)])
        XCTAssertEqual(devices.count, 4)

        let database = try openDatabase()
        let times = try database.withStatement("SELECT token, updated_at FROM devices ORDER BY updated_at, token") {
            row in
            var times: [String: Int64] = [:]
            while try row.step() { times[DeviceToken(bytes: row.blob(0) ?? []).hex] = row.int64(1) }
            return times
        }
        XCTAssertEqual(times[Fixture.apnsToken(3).hex], 1_700_000_005)
        XCTAssertEqual(times[Fixture.apnsToken(4).hex], 1_700_000_009)
        XCTAssertEqual(times[Fixture.apnsToken(2).hex], 1_700_000_000, "the same report the same day: not written")
    }

    /// Reports of accounts whose links already go to the reported tokens are recorded together
    /// (one UPDATE for the batch), new accounts too (two INSERTs); a new username goes through
    /// the per-report function. Every device records its latest report either way.
    func testRepeatedReportsRecordTheirTimeAndSpellingAndNewUsernamesStillRename() throws {
        let store = try makePostgreSQLStore()
        XCTAssertEqual(
            store.saveReports([
                report("alice", username: "a", seeds: [1, 2]),
                report("bob", username: "b", seeds: [3, 3]),  // one token on both channels
                report("carol", username: "c", seeds: [4]),
                report("dave", username: "d", seeds: [4]),  // carol's device too
            ]).map { $0 == nil }, [true, true, true, true])
        let before = try store.devices()
        XCTAssertEqual(before.count, 4)

        func hexReport(_ selector: String, username: String?, seeds: [UInt8]) -> AccountReport {
            var report = report(selector, username: username, seeds: seeds, now: 1_700_000_100)
            for index in report.tokens.indices { report.tokens[index].reportedToken = report.tokens[index].token.hex }
            return report
        }
        XCTAssertEqual(
            store.saveReports([
                hexReport("alice", username: nil, seeds: [1, 2]),
                hexReport("bob", username: "b", seeds: [3, 3]),
                hexReport("carol", username: "c2", seeds: [4]),
                hexReport("dave", username: "d", seeds: [4]),
                hexReport("eve", username: "e", seeds: [5]),
            ]).map { $0 == nil }, [true, true, true, true, true])

        let after = try store.devices()
        XCTAssertEqual(after.count, 5)
        XCTAssertEqual(after.filter { $0.updatedAt == 1_700_000_100 }.count, 5, "\(after)")
        XCTAssertEqual(after.filter { $0.reportedToken == $0.token.hex }.count, 5)
        XCTAssertEqual(Array(after.prefix(4).map(\.id)), before.map(\.id), "the same devices")
        XCTAssertEqual(
            after.first { $0.token == Fixture.apnsToken(4) }?.owners,
            [
                .acrobitsAccount(selector: "carol", channel: .calls, username: "c2"),
                .acrobitsAccount(selector: "dave", channel: .calls, username: "d"),
            ])
        XCTAssertEqual(
            after.first { $0.token == Fixture.apnsToken(1) }?.owners,
            [.acrobitsAccount(selector: "alice", channel: .calls, username: "a")], "no username keeps the known one")
    }

    /// Repeated reports the same day, batched, write no row (the set-based path, 0019): a
    /// device's time has a day's precision. On a later day each device records the new day
    /// once, as the reports one by one would, and only the devices are written.
    func testRepeatedReportsTheSameDayWriteNothingAndOnALaterDayOnlyTheDevices() throws {
        let store = try makePostgreSQLStore()
        let day = RetentionPolicy.day
        let start = 1_700_000_000 / day * day + 60
        func batch(at now: Int64) -> [AccountReport] {
            [
                report("alice", username: "a", seeds: [1, 2], now: now),
                report("bob", username: nil, seeds: [3, 1], now: now + 1),  // alice's calls device too
            ]
        }
        XCTAssertEqual(store.saveReports(batch(at: start)).map { $0 == nil }, [true, true])
        XCTAssertEqual(try store.devices().count, 3)
        let database = try openDatabase()
        try countRowWrites(of: ["devices", "acrobits_accounts"], in: database)

        XCTAssertEqual(store.saveReports(batch(at: start + day - 62)).map { $0 == nil }, [true, true])
        XCTAssertEqual(try rowWrites(in: database), [], "the same reports the same day write nothing")
        func times() throws -> [UInt8: Int64] {
            Dictionary(uniqueKeysWithValues: try store.devices().map { ($0.token.bytes[0], $0.updatedAt) })
        }
        XCTAssertEqual(try times(), [1: start + 1, 2: start, 3: start + 1])

        XCTAssertEqual(store.saveReports(batch(at: start + day)).map { $0 == nil }, [true, true])
        XCTAssertEqual(try rowWrites(in: database), Array(repeating: "devices UPDATE", count: 3))
        XCTAssertEqual(
            try times(), [1: start + day, 2: start + day, 3: start + day + 1],
            "as one by one: a device two reports share records the first of its new day, the second repeats it")
    }

    /// A report the database refuses fails the batch's one call, which leaves nothing; the
    /// reports then run alone and only the refused one keeps an error.
    func testARefusedReportFailsAloneAndTheOthersAreWritten() throws {
        let store = try makePostgreSQLStore()
        let database = try openDatabase()
        try refuseAccountLinks(named: "refuse_account", where: "selector", is: "refused", in: database)
        let batch = [
            report("alice", username: "a", seeds: [1]),
            report("refused", username: "r", seeds: [2]),
            report("bob", username: "b", seeds: [3]),
        ]
        XCTAssertThrowsError(try AcrobitsAccountTable.saveTogether(batch, in: database)) { error in
            XCTAssertTrue("\(error)".contains("refused by test"), "\(error)")
        }
        XCTAssertEqual(try count("devices", in: database), 0, "the failed call left nothing")

        let outcomes = store.saveReports(batch)
        XCTAssertNil(outcomes[0])
        XCTAssertTrue(outcomes[1].map { "\($0)".contains("refused by test") } ?? false, "\(outcomes)")
        XCTAssertNil(outcomes[2])
        XCTAssertEqual(
            try store.devices().flatMap(\.owners).sorted { "\($0)" < "\($1)" },
            [
                .acrobitsAccount(selector: "alice", channel: .calls, username: "a"),
                .acrobitsAccount(selector: "bob", channel: .calls, username: "b"),
            ])
    }
}
