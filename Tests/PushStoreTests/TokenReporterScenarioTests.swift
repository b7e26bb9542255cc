import Foundation
import PushCore
import XCTest

@testable import PushStore

/// The Token Reporter's rules as one table of reports and the rows they must leave, run on both
/// engines. The rules are written twice: in Swift (`SQLStore.saveAccountTokens`, SQLite) and in
/// the PostgreSQL schema's functions (`pushgate_save_account_tokens`, one report, and
/// `pushgate_save_account_reports`, a batch: PostgreSQL's migrations 0005 and 0008). Each step's
/// reports go to PostgreSQL as one batch when there are several, so both functions are held
/// to the same table; a drift of either engine fails here.
final class TokenReporterScenarioTests: StoreTestCase {
    /// One report: the account, its username (nil keeps the known one), and its channels'
    /// tokens as (channel, app, token seed).
    private struct Report {
        var selector: String
        var username: String?
        var tokens: [(AcrobitsChannel, AppID, UInt8)]
    }

    private struct Scenario {
        var name: String
        /// Each step's reports are made at the same moment (step k at second 1000 + k ×
        /// `stepSeconds`: the same day unless a scenario says otherwise).
        var steps: [[Report]]
        var stepSeconds: Int64 = 1
        /// Accounts removed after the steps.
        var removed: [String] = []
        /// Every device left, as `app/seed created updated owner,owner`.
        var rows: [String]
    }

    private static let voip = AppID("com.example.voip")!
    private static let chat = AppID("com.example.chat")!

    private static let scenarios: [Scenario] = [
        Scenario(
            name: "a new account with both channels",
            steps: [[Report(selector: "alice", username: "a@x", tokens: [(.calls, voip, 1), (.msgs, voip, 2)])]],
            rows: ["com.example.voip/1 1000 1000 alice:calls:a@x", "com.example.voip/2 1000 1000 alice:msgs:a@x"]),
        Scenario(
            name: "a repeated report the same day leaves the device as it was (a day's precision)",
            steps: [
                [Report(selector: "alice", username: "a@x", tokens: [(.calls, voip, 1)])],
                [Report(selector: "alice", username: "a@x", tokens: [(.calls, voip, 1)])],
            ],
            rows: ["com.example.voip/1 1000 1000 alice:calls:a@x"]),
        Scenario(
            name: "a repeated report on a later day moves the time, not the creation",
            steps: [
                [Report(selector: "alice", username: "a@x", tokens: [(.calls, voip, 1)])],
                [Report(selector: "alice", username: "a@x", tokens: [(.calls, voip, 1)])],
            ],
            stepSeconds: 86_400,
            rows: ["com.example.voip/1 1000 87400 alice:calls:a@x"]),
        Scenario(
            name: "repeated reports together on a later day: a shared device records the later",
            steps: [
                [
                    Report(selector: "alice", username: "a@x", tokens: [(.calls, voip, 1)]),
                    Report(selector: "bob", username: nil, tokens: [(.calls, voip, 2), (.msgs, voip, 1)]),
                ],
                [
                    Report(selector: "alice", username: "a@x", tokens: [(.calls, voip, 1)]),
                    Report(selector: "bob", username: nil, tokens: [(.calls, voip, 2), (.msgs, voip, 1)]),
                ],
            ],
            stepSeconds: 86_400,
            rows: ["com.example.voip/1 1000 87400 alice:calls:a@x,bob:msgs:-", "com.example.voip/2 1000 87400 bob:calls:-"]),
        Scenario(
            name: "no username keeps the known one; a new one renames",
            steps: [
                [Report(selector: "alice", username: "old", tokens: [(.calls, voip, 1)])],
                [Report(selector: "alice", username: nil, tokens: [(.calls, voip, 1)])],
                [Report(selector: "bob", username: nil, tokens: [(.calls, voip, 3)])],
                [Report(selector: "bob", username: "b@x", tokens: [(.calls, voip, 3)])],
            ],
            rows: ["com.example.voip/1 1000 1000 alice:calls:old", "com.example.voip/3 1002 1002 bob:calls:b@x"]),
        Scenario(
            name: "a new token replaces the old; the ownerless device goes",
            steps: [
                [Report(selector: "alice", username: nil, tokens: [(.calls, voip, 1), (.msgs, voip, 2)])],
                [Report(selector: "alice", username: nil, tokens: [(.calls, voip, 3)])],
            ],
            rows: ["com.example.voip/2 1000 1000 alice:msgs:-", "com.example.voip/3 1001 1001 alice:calls:-"]),
        Scenario(
            name: "the same token under another app is another device; the channel moves",
            steps: [
                [Report(selector: "alice", username: nil, tokens: [(.calls, voip, 1)])],
                [Report(selector: "alice", username: nil, tokens: [(.calls, chat, 1)])],
            ],
            rows: ["com.example.chat/1 1001 1001 alice:calls:-"]),
        Scenario(
            name: "one token on both channels is one device",
            steps: [[Report(selector: "alice", username: nil, tokens: [(.calls, voip, 1), (.msgs, voip, 1)])]],
            rows: ["com.example.voip/1 1000 1000 alice:calls:-,alice:msgs:-"]),
        Scenario(
            name: "channels swapping tokens keep both devices",
            steps: [
                [Report(selector: "alice", username: nil, tokens: [(.calls, voip, 1), (.msgs, voip, 2)])],
                [Report(selector: "alice", username: nil, tokens: [(.calls, voip, 2), (.msgs, voip, 1)])],
            ],
            rows: ["com.example.voip/1 1000 1001 alice:msgs:-", "com.example.voip/2 1000 1001 alice:calls:-"]),
        Scenario(
            name: "accounts reporting together, one device shared; a removal keeps what another owns",
            steps: [
                [
                    Report(selector: "alice", username: "a@x", tokens: [(.calls, voip, 1)]),
                    Report(selector: "bob", username: "b@x", tokens: [(.calls, voip, 1), (.msgs, voip, 2)]),
                    Report(selector: "carol", username: nil, tokens: [(.msgs, chat, 4)]),
                ],
                [
                    Report(selector: "alice", username: "a@x", tokens: [(.calls, voip, 1)]),
                    Report(selector: "carol", username: "c@x", tokens: [(.msgs, chat, 5)]),
                ],
            ],
            removed: ["bob"],
            rows: ["com.example.chat/5 1001 1001 carol:msgs:c@x", "com.example.voip/1 1000 1000 alice:calls:a@x"]),
    ]

    func testEveryScenarioLeavesItsRows() throws {
        for scenario in Self.scenarios {
            // A fresh store per scenario: its own schema on PostgreSQL, its own file on SQLite.
            try tearDownWithError()
            try setUpWithError()
            let now = Locked<Int64>(1000)
            let store = try makeStore { now.withLock { $0 } }
            for (index, step) in scenario.steps.enumerated() {
                let time = 1000 + Int64(index) * scenario.stepSeconds
                now.withLock { $0 = time }
                try save(step, at: time, in: store)
            }
            for selector in scenario.removed {
                _ = try store.removeAccount(selector: selector)
            }
            XCTAssertEqual(try rows(of: store), scenario.rows, scenario.name)
        }
    }

    /// A step's reports: as one batch on PostgreSQL when there are several (the batch
    /// function), one after another on SQLite.
    private func save(_ step: [Report], at time: Int64, in store: any StoreUnderTest) throws {
        let reports = step.map { report in
            AccountReport(
                selector: report.selector, username: report.username,
                tokens: report.tokens.map { channel, app, seed in
                    let token = DeviceToken(bytes: Array(repeating: seed, count: 32))
                    return ChannelToken(channel: channel, appID: app, token: token, reportedToken: token.base64)
                },
                now: time)
        }
        if let postgreSQL = store as? PostgreSQLStore, reports.count > 1 {
            for failure in postgreSQL.saveReports(reports) {
                if let failure { throw failure }
            }
            return
        }
        for report in reports {
            try store.saveAccountTokens(selector: report.selector, username: report.username, tokens: report.tokens)
        }
    }

    private func rows(of store: any StoreUnderTest) throws -> [String] {
        try store.devices().map { device in
            let owners = device.owners.compactMap { owner -> String? in
                guard case .acrobitsAccount(let selector, let channel, let username) = owner else { return nil }
                return "\(selector):\(channel.rawValue):\(username ?? "-")"
            }.sorted().joined(separator: ",")
            return "\(device.appID)/\(device.token.bytes[0]) \(device.createdAt) \(device.updatedAt) \(owners)"
        }.sorted()
    }
}
