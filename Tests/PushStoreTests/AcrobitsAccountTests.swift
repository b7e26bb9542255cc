import PushTesting
import Foundation
import PushCore
import XCTest

@testable import PushStore

final class AcrobitsAccountTests: StoreTestCase {
    func testSavesBothChannelsWithUsername() throws {
        let store = try makeStore()
        try store.addApp(Fixture.apnsApp, replacing: false)
        try store.saveAccountTokens(
            selector: "alice", username: "alice@example.com",
            tokens: [Fixture.channelToken(.calls, seed: 1), Fixture.channelToken(.msgs, seed: 2)])

        let devices = try store.devices()
        XCTAssertEqual(devices.map(\.token), [Fixture.apnsToken(1), Fixture.apnsToken(2)])
        XCTAssertEqual(devices.map(\.reportedToken), [Fixture.apnsToken(1).base64, Fixture.apnsToken(2).base64])
        XCTAssertEqual(devices.map(\.appID), [Fixture.apnsAppID, Fixture.apnsAppID])
        XCTAssertEqual(devices.map(\.createdAt), [1_700_000_000, 1_700_000_000])
        XCTAssertEqual(devices.map(\.sandbox), [nil, nil], "devices follow their app")
        XCTAssertEqual(
            devices.map(\.owners),
            [
                [.acrobitsAccount(selector: "alice", channel: .calls, username: "alice@example.com")],
                [.acrobitsAccount(selector: "alice", channel: .msgs, username: "alice@example.com")],
            ])
    }

    /// A report without a username is like a null token: it erases nothing.
    func testAReportWithoutUsernameKeepsTheKnownOne() throws {
        let store = try makeStore()
        try store.saveAccountTokens(selector: "alice", username: nil, tokens: [Fixture.channelToken(.calls, seed: 1)])
        XCTAssertEqual(
            try store.devices().flatMap(\.owners), [.acrobitsAccount(selector: "alice", channel: .calls, username: nil)]
        )
        try store.saveAccountTokens(selector: "alice", username: "old", tokens: [Fixture.channelToken(.calls, seed: 1)])
        try store.saveAccountTokens(selector: "alice", username: nil, tokens: [Fixture.channelToken(.calls, seed: 1)])
        XCTAssertEqual(
            try store.devices().flatMap(\.owners),
            [.acrobitsAccount(selector: "alice", channel: .calls, username: "old")]
        )
    }

    func testANewTokenReplacesTheOldAndTheOwnerlessDeviceIsDeleted() throws {
        let store = try makeStore()
        try store.saveAccountTokens(
            selector: "alice", username: nil,
            tokens: [Fixture.channelToken(.calls, seed: 1), Fixture.channelToken(.msgs, seed: 2)])
        // Only the calls token changes: msgs keeps its device.
        try store.saveAccountTokens(selector: "alice", username: nil, tokens: [Fixture.channelToken(.calls, seed: 3)])

        let devices = try store.devices()
        XCTAssertEqual(Set(devices.map(\.token)), [Fixture.apnsToken(2), Fixture.apnsToken(3)])
        XCTAssertEqual(try count("devices", in: try openDatabase()), 2, "the old calls device is gone")
        XCTAssertEqual(
            devices.first { $0.token == Fixture.apnsToken(3) }?.owners,
            [.acrobitsAccount(selector: "alice", channel: .calls, username: nil)])
    }

    func testTheSameTokenTwiceIsOneDeviceWhoseTimeMoves() throws {
        let now = Locked<Int64>(1_000)
        let store = try makeStore(clock: { now.withLock { $0 } })
        var token = Fixture.channelToken(.calls, seed: 1)
        try store.saveAccountTokens(selector: "alice", username: nil, tokens: [token])
        let first = try XCTUnwrap(try store.devices().first)

        now.withLock { $0 = 2_000 }
        token.reportedToken = Fixture.apnsToken(1).hex  // same bytes, another spelling
        try store.saveAccountTokens(selector: "alice", username: nil, tokens: [token])

        let devices = try store.devices()
        XCTAssertEqual(devices.count, 1)
        XCTAssertEqual(devices[0].id, first.id)
        XCTAssertEqual(devices[0].createdAt, 1_000)
        XCTAssertEqual(devices[0].updatedAt, 2_000)
        XCTAssertEqual(devices[0].reportedToken, Fixture.apnsToken(1).hex)
        XCTAssertEqual(try linkTime(selector: "alice"), 1_000, "the device records the report, the link is unchanged")
    }

    /// A repeated token under a new username renames the link, when it happened; without a
    /// username, or with the same one, the link stays as it was.
    func testANewUsernameOnTheSameTokenRenamesTheLink() throws {
        let now = Locked<Int64>(1_000)
        let store = try makeStore(clock: { now.withLock { $0 } })
        let token = Fixture.channelToken(.calls, seed: 1)
        try store.saveAccountTokens(selector: "alice", username: "old", tokens: [token])
        now.withLock { $0 = 2_000 }
        try store.saveAccountTokens(selector: "alice", username: "old", tokens: [token])
        try store.saveAccountTokens(selector: "alice", username: nil, tokens: [token])
        XCTAssertEqual(try linkTime(selector: "alice"), 1_000)

        now.withLock { $0 = 3_000 }
        try store.saveAccountTokens(selector: "alice", username: "new", tokens: [token])
        XCTAssertEqual(try linkTime(selector: "alice"), 3_000)
        XCTAssertEqual(
            try store.devices().flatMap(\.owners),
            [.acrobitsAccount(selector: "alice", channel: .calls, username: "new")])
        XCTAssertEqual(try store.devices().map(\.updatedAt), [1_000], "the device is as it was: the same day")
    }

    /// A device's time is kept to the precision retention uses, a day: the same report again
    /// within the day writes no row at all (not the device, whose `updated_at` is indexed, nor
    /// the link), with or without the username; a report on a later day moves each device's
    /// time, and only that.
    func testAnUnchangedReportWritesNothingTheSameDayAndMovesTheTimeOnALaterDay() throws {
        let day = RetentionPolicy.day
        let start = 1_700_000_000 / day * day + 60  // a minute into a day (UTC)
        let now = Locked<Int64>(start)
        let store = try makeStore(clock: { now.withLock { $0 } })
        try store.addApp(Fixture.apnsApp, replacing: false)
        let tokens = [Fixture.channelToken(.calls, seed: 1), Fixture.channelToken(.msgs, seed: 2)]
        try store.saveAccountTokens(selector: "alice", username: "a", tokens: tokens)
        let database = try openDatabase()
        try countRowWrites(of: ["devices", "acrobits_accounts"], in: database)

        now.withLock { $0 = start + day - 61 }  // the day's last second
        try store.saveAccountTokens(selector: "alice", username: "a", tokens: tokens)
        try store.saveAccountTokens(selector: "alice", username: nil, tokens: tokens)
        XCTAssertEqual(try rowWrites(in: database), [], "the same report the same day writes nothing")
        XCTAssertEqual(try store.devices().map(\.updatedAt), [start, start])

        now.withLock { $0 = start + day - 60 }  // the next day's first second
        try store.saveAccountTokens(selector: "alice", username: "a", tokens: tokens)
        XCTAssertEqual(
            try rowWrites(in: database), ["devices UPDATE", "devices UPDATE"], "the links stay as they were")
        XCTAssertEqual(try store.devices().map(\.updatedAt), [start + day - 60, start + day - 60])
        XCTAssertEqual(try store.devices().map(\.createdAt), [start, start])
        XCTAssertEqual(try linkTime(selector: "alice"), start)
        XCTAssertEqual(
            try store.devices().flatMap(\.owners),
            [
                .acrobitsAccount(selector: "alice", channel: .calls, username: "a"),
                .acrobitsAccount(selector: "alice", channel: .msgs, username: "a"),
            ])

        // Within that day again: nothing more.
        now.withLock { $0 = start + day + 3_600 }
        try store.saveAccountTokens(selector: "alice", username: "a", tokens: tokens)
        XCTAssertEqual(try rowWrites(in: database).count, 2)
    }

    /// The same token bytes under another app id are another device, even on the channel
    /// whose device had those bytes: the channel moves, the old device goes, untouched.
    func testTheSameTokenUnderAnotherAppMovesTheChannelToANewDevice() throws {
        let now = Locked<Int64>(1_000)
        let store = try makeStore(clock: { now.withLock { $0 } })
        try store.saveAccountTokens(selector: "alice", username: nil, tokens: [Fixture.channelToken(.calls, seed: 1)])
        let old = try XCTUnwrap(try store.devices().first)

        now.withLock { $0 = 2_000 }
        let other = AppID("com.example.other")!
        try store.saveAccountTokens(
            selector: "alice", username: nil, tokens: [Fixture.channelToken(.calls, seed: 1, app: other)])
        let devices = try store.devices()
        XCTAssertEqual(devices.map(\.appID), [other])
        XCTAssertNotEqual(devices.first?.id, old.id)
        XCTAssertEqual(devices.first?.token, old.token)
        XCTAssertEqual(devices.first?.createdAt, 2_000)
        XCTAssertEqual(devices.flatMap(\.owners), [.acrobitsAccount(selector: "alice", channel: .calls, username: nil)])
    }

    private func linkTime(selector: String) throws -> Int64 {
        try openDatabase().withStatement("SELECT updated_at FROM acrobits_accounts WHERE selector = ?") {
            try $0.bind(selector, at: 1)
            return try $0.step() ? $0.int64(0) : -1
        }
    }

    func testOneTokenOnBothChannelsIsOneDevice() throws {
        let store = try makeStore()
        try store.saveAccountTokens(
            selector: "alice", username: nil,
            tokens: [Fixture.channelToken(.calls, seed: 1), Fixture.channelToken(.msgs, seed: 1)])
        let devices = try store.devices()
        XCTAssertEqual(devices.count, 1)
        XCTAssertEqual(devices[0].owners.count, 2)
    }

    func testTheSameTokenOfAnotherAppIsAnotherDevice() throws {
        let store = try makeStore()
        try store.saveAccountTokens(
            selector: "alice", username: nil,
            tokens: [
                Fixture.channelToken(.calls, seed: 1), Fixture.channelToken(.msgs, seed: 1, app: Fixture.fcmAppID),
            ])
        XCTAssertEqual(try store.devices().map(\.appID), [Fixture.fcmAppID, Fixture.apnsAppID], "ordered by app")
    }

    func testChannelsSwappingTokensKeepBothDevices() throws {
        let store = try makeStore()
        try store.saveAccountTokens(
            selector: "alice", username: nil,
            tokens: [Fixture.channelToken(.calls, seed: 1), Fixture.channelToken(.msgs, seed: 2)])
        let before = try store.devices().map(\.id)
        try store.saveAccountTokens(
            selector: "alice", username: nil,
            tokens: [Fixture.channelToken(.calls, seed: 2), Fixture.channelToken(.msgs, seed: 1)])
        let after = try store.devices()
        XCTAssertEqual(after.map(\.id), before, "no device was deleted and recreated")
        XCTAssertEqual(
            after.first { $0.token == Fixture.apnsToken(1) }?.owners,
            [.acrobitsAccount(selector: "alice", channel: .msgs, username: nil)])
    }

    func testASharedDeviceSurvivesTheRemovalOfOneAccount() throws {
        let store = try makeStore()
        for selector in ["alice", "bob"] {
            try store.saveAccountTokens(
                selector: selector, username: selector, tokens: [Fixture.channelToken(.calls, seed: 1)])
        }
        XCTAssertEqual(try store.devices().count, 1)

        XCTAssertEqual(try store.removeAccount(selector: "alice"), 1)
        XCTAssertEqual(
            try store.devices().map(\.owners), [[.acrobitsAccount(selector: "bob", channel: .calls, username: "bob")]])

        // And a shared device survives one of its accounts moving to another token.
        try store.saveAccountTokens(selector: "alice", username: nil, tokens: [Fixture.channelToken(.calls, seed: 1)])
        try store.saveAccountTokens(selector: "alice", username: nil, tokens: [Fixture.channelToken(.calls, seed: 2)])
        XCTAssertEqual(Set(try store.devices().map(\.token)), [Fixture.apnsToken(1), Fixture.apnsToken(2)])
    }

    func testRemoveAccountRemovesBothChannelsAndOwnerlessDevices() throws {
        let store = try makeStore()
        try store.saveAccountTokens(
            selector: "alice", username: nil,
            tokens: [Fixture.channelToken(.calls, seed: 1), Fixture.channelToken(.msgs, seed: 2)])
        try store.saveAccountTokens(selector: "bob", username: nil, tokens: [Fixture.channelToken(.msgs, seed: 3)])

        XCTAssertEqual(try store.removeAccount(selector: "alice"), 2)
        XCTAssertEqual(try store.devices().map(\.token), [Fixture.apnsToken(3)])
        XCTAssertEqual(try store.removeAccount(selector: "alice"), 0)
    }

    func testADeviceWithAnotherDialectsOwnerIsNotDeleted() throws {
        let store = try makeStore()
        try store.saveAccountTokens(selector: "alice", username: nil, tokens: [Fixture.channelToken(.calls, seed: 1)])
        // A bridge subscription on the same device, written as the bridge store will.
        let database = try openDatabase()
        try database.execute(
            """
            INSERT INTO bridge_subscriptions (device_id, topic_selector, created_at)
                SELECT id, '?news', 0 FROM devices
            """)

        XCTAssertEqual(try store.removeAccount(selector: "alice"), 1)
        XCTAssertEqual(try count("devices", in: database), 1)
    }

    func testADeadDeviceTakesItsLinksWithIt() throws {
        let store = try makeStore()
        try store.saveAccountTokens(
            selector: "alice", username: nil,
            tokens: [Fixture.channelToken(.calls, seed: 1), Fixture.channelToken(.msgs, seed: 1)])
        let database = try openDatabase()
        try database.execute("DELETE FROM devices")  // as delivery will on a dead token
        XCTAssertEqual(try count("acrobits_accounts", in: database), 0)
    }

    func testAFailedSaveLeavesNothing() throws {
        let store = try makeStore()
        try store.saveAccountTokens(selector: "alice", username: "a", tokens: [Fixture.channelToken(.calls, seed: 1)])
        // Make the second link of the next save fail, after its devices and first link were written.
        let database = try openDatabase()
        try refuseAccountLinks(named: "fail_msgs", where: "channel", is: "msgs", in: database)
        let snapshot = try store.devices()

        XCTAssertThrowsError(
            try store.saveAccountTokens(
                selector: "alice", username: "b",
                tokens: [Fixture.channelToken(.calls, seed: 2), Fixture.channelToken(.msgs, seed: 3)])
        ) { error in
            XCTAssertTrue("\(error)".contains("refused by test"), "\(error)")
        }
        XCTAssertEqual(try store.devices(), snapshot, "the replaced calls link and the new devices rolled back")

        // The store's connection is usable again afterwards.
        try database.execute(
            sql(sqlite: "DROP TRIGGER fail_msgs", postgresql: "DROP TRIGGER fail_msgs ON acrobits_accounts"))
        try store.saveAccountTokens(selector: "alice", username: "b", tokens: [Fixture.channelToken(.msgs, seed: 3)])
        XCTAssertEqual(try store.devices().count, 2)
    }

    /// Reports made at the same moment are written together (SQLite's group-commit writer,
    /// PostgreSQL's report batches): one account that the database refuses fails its own
    /// reports only, and every other report is stored.
    func testAReportRefusedAmongConcurrentReportsFailsAlone() throws {
        let store = try makeStore()
        try store.addApp(Fixture.apnsApp, replacing: false)
        let database = try openDatabase()
        try refuseAccountLinks(named: "refuse_account", where: "selector", is: "refused", in: database)
        let threadCount = 8
        let reportsPerThread = 40
        let outcomes = Locked<[String: Int]>([:])
        let done = DispatchGroup()
        for thread in 0..<threadCount {
            done.enter()
            Thread {
                defer { done.leave() }
                for report in 0..<reportsPerThread {
                    let refused = report % 10 == thread
                    let selector = refused ? "refused" : "account-\(thread)-\(report)"
                    let seed = UInt8(truncatingIfNeeded: thread * reportsPerThread + report)
                    do {
                        try store.saveAccountTokens(
                            selector: selector, username: "user", tokens: [Fixture.channelToken(.calls, seed: seed)])
                        outcomes.withLock { $0[refused ? "refused stored" : "stored", default: 0] += 1 }
                    } catch {
                        let own = "\(error)".contains("refused by test")
                        outcomes.withLock {
                            $0[(refused && own) ? "refused failed" : "other failed: \(error)", default: 0] += 1
                        }
                    }
                }
            }.start()
        }
        XCTAssertEqual(done.wait(timeout: .now() + 120), .success, "reporters did not finish")
        let refusedCount = threadCount * (reportsPerThread / 10)
        XCTAssertEqual(
            outcomes.withLock { $0 },
            ["stored": threadCount * reportsPerThread - refusedCount, "refused failed": refusedCount])
        XCTAssertEqual(
            try count("acrobits_accounts", in: database), Int64(threadCount * reportsPerThread - refusedCount))
    }

    /// The Token Reporter's new-device gate is asked before a report that may create a
    /// device (a new channel, or a channel moving to another device), and only then; its
    /// refusal writes nothing.
    func testTheNewDeviceGateIsAskedOnlyBeforeAReportThatMayCreateADevice() throws {
        let store = try makeStore()
        var asked = 0
        func save(_ tokens: [ChannelToken], username: String? = nil) throws {
            try store.saveAccountTokens(
                selector: "alice", username: username, tokens: tokens, admittingNewDevices: { asked += 1 })
        }
        let calls = Fixture.channelToken(.calls, seed: 1)
        try save([calls, Fixture.channelToken(.msgs, seed: 2)])
        XCTAssertEqual(asked, 1, "a new account")
        try save([calls, Fixture.channelToken(.msgs, seed: 2)])
        XCTAssertEqual(asked, 1, "a repeat")
        try save([calls], username: "alice@example.com")
        var respelled = calls
        respelled.reportedToken = calls.token.hex
        try save([respelled])
        XCTAssertEqual(asked, 1, "a new username, a new spelling: the same devices")
        XCTAssertEqual(try store.devices().first?.reportedToken, calls.token.hex)
        try save([calls, Fixture.channelToken(.msgs, seed: 3)])
        XCTAssertEqual(asked, 2, "a channel's new token")

        struct Refused: Error {}
        XCTAssertThrowsError(
            try store.saveAccountTokens(
                selector: "alice", username: nil, tokens: [Fixture.channelToken(.calls, seed: 4)],
                admittingNewDevices: { throw Refused() })
        ) { XCTAssertTrue($0 is Refused) }
        XCTAssertEqual(try store.accountDevices(selector: "alice")[.calls]?.token, Fixture.apnsToken(1))
        XCTAssertEqual(try store.devices().map(\.token), [Fixture.apnsToken(1), Fixture.apnsToken(3)])
    }

    func testNoTokensIsANoOp() throws {
        let store = try makeStore()
        try store.saveAccountTokens(selector: "alice", username: nil, tokens: [])
        XCTAssertEqual(try store.devices(), [])
    }
}
