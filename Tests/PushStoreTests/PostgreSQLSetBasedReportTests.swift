import Foundation
import PushCore
import XCTest

@testable import PushStore

/// `pushgate_save_account_reports` (migration 0014) writes repeated reports and new accounts
/// with a few statements for the whole batch and the rest one by one: the outcome must be
/// the batch's order all the same, and its plans must stay index probes as the tables grow.
final class PostgreSQLSetBasedReportTests: StoreTestCase {
    /// A report of `selector`'s channels (calls, then msgs) to the tokens of `seeds`, spelt as
    /// `spelling` makes them, so that which report a device records last shows.
    private func report(
        _ selector: String, _ username: String?, _ seeds: [UInt8], at now: Int64,
        spelling: (DeviceToken) -> String = \.base64
    ) -> AccountReport {
        let tokens = zip([AcrobitsChannel.calls, .msgs], seeds).map { channel, seed in
            let token = Fixture.apnsToken(seed)
            return ChannelToken(channel: channel, appID: Fixture.apnsAppID, token: token, reportedToken: spelling(token))
        }
        return AccountReport(selector: selector, username: username, tokens: tokens, now: now)
    }

    private func saveOneByOne(_ reports: [AccountReport], in database: PostgreSQLConnection) throws {
        for report in reports {
            try AcrobitsAccountTable.saveInOneCall(
                selector: report.selector, username: report.username, tokens: report.tokens, now: report.now,
                in: database)
        }
    }

    /// Every device and link, one line each. A device made by this batch is named by its app
    /// and token only: the batch creates its devices in another order than the reports one
    /// by one, so their ids differ. A device older than the batch keeps its id in the line
    /// (`keptIDsUpTo`), so that one deleted and made again shows.
    private func state(keptIDsUpTo lastOldID: Int64, in database: PostgreSQLConnection) throws -> [String] {
        let devices = """
            SELECT concat_ws('|', 'device', app_id, encode(token, 'hex'), reported_token, coalesce(platform, 'NULL'),
                coalesce(sandbox::text, 'NULL'), created_at, updated_at,
                CASE WHEN id <= \(lastOldID) THEN id::text ELSE 'new' END)
            FROM devices ORDER BY 1
            """
        let links = """
            SELECT concat_ws('|', 'link', a.selector, a.channel, coalesce(a.username, 'NULL'), a.updated_at,
                d.app_id, encode(d.token, 'hex'), CASE WHEN d.id <= \(lastOldID) THEN d.id::text ELSE 'new' END)
            FROM acrobits_accounts a JOIN devices d ON d.id = a.device_id ORDER BY 1
            """
        return try [devices, links].flatMap { sql in
            try database.withStatement(sql) { row in
                var lines: [String] = []
                while try row.step() { lines.append(row.string(0) ?? "") }
                return lines
            }
        }
    }

    private func lastDeviceID(in database: PostgreSQLConnection) throws -> Int64 {
        try database.withStatement("SELECT coalesce(max(id), 0) FROM devices") { row in
            _ = try row.step()
            return row.int64(0)
        }
    }

    /// A batch of every kind of report at once ends exactly as the same reports one by one.
    func testAMixedBatchEndsAsTheReportsOneByOne() throws {
        let database = try openPostgreSQLDatabaseWithAPNsApp()
        let before = [
            report("alice", "a", [1, 2], at: 10),
            report("bob", "b", [3], at: 11),
            report("carol", "c", [4], at: 12),
            report("dave", "d", [4], at: 13),  // carol's device too
            report("erin", "e", [5, 6], at: 14),
            report("frank", "f", [7], at: 15),
            report("oscar", "o", [13], at: 16),
            report("quinn", "q", [14], at: 17),
        ]
        let hex: (DeviceToken) -> String = \.hex
        let batch = [
            report("alice", nil, [1, 2], at: 101, spelling: hex),  // repeated, keeps its username
            report("bob", "b", [8], at: 102),  // a new token: device 3 has no owner left
            report("carol", "c", [4], at: 103, spelling: hex),  // repeated, on a shared device
            report("erin", "e2", [5, 6], at: 104),  // a new username
            report("gina", "g", [9, 10], at: 105),  // new
            report("dave", nil, [4], at: 106),  // repeated on carol's device, later: its spelling stays
            report("frank", "f", [7], at: 107, spelling: hex),  // twice in the batch
            report("hank", "h", [7], at: 108),  // new, on frank's device
            report("frank", "f", [11], at: 109),  // frank moves: hank keeps device 7
            report("ivy", "i", [9], at: 100, spelling: hex),  // new, on gina's new device, an earlier time
            report("jack", "j", [12, 12], at: 111),  // new, one device on both channels
            report("pia", "p", [13], at: 112),  // new, on oscar's device (oscar is not in the batch)
            report("lena", "l", [2], at: 113),  // new, on alice's repeated device
            report("quinn", "q", [14], at: 114, spelling: hex),  // repeated, alone
        ]

        try saveOneByOne(before, in: database)
        let lastOldID = try lastDeviceID(in: database)
        try saveOneByOne(batch, in: database)
        let expected = try state(keptIDsUpTo: lastOldID, in: database)

        try database.execute("TRUNCATE devices, acrobits_accounts RESTART IDENTITY CASCADE")
        try saveOneByOne(before, in: database)
        XCTAssertEqual(try lastDeviceID(in: database), lastOldID)
        try AcrobitsAccountTable.saveTogether(batch, in: database)
        XCTAssertEqual(try state(keptIDsUpTo: lastOldID, in: database), expected)

        XCTAssertTrue(expected.contains { $0.hasPrefix("link|hank|calls|h|108|") && $0.hasSuffix("|7") }, "\(expected)")
        XCTAssertFalse(expected.contains { $0.contains(Fixture.apnsToken(3).hex) }, "bob's old device went")
        XCTAssertEqual(expected.filter { $0.hasPrefix("device|") }.count, 13, "\(expected)")
    }

    /// Two accounts on one device, both repeated in one batch: the device records the later
    /// report, whichever account makes it, and both links stay as they were.
    func testADeviceSharedByTwoAccountsRecordsTheLaterReport() throws {
        let database = try openPostgreSQLDatabaseWithAPNsApp()
        try saveOneByOne([report("carol", "c", [4], at: 10), report("dave", "d", [4], at: 11)], in: database)
        let links = try state(keptIDsUpTo: .max, in: database).filter { $0.hasPrefix("link|") }
        let hex: (DeviceToken) -> String = \.hex

        for (round, (first, second)) in [("carol", "dave"), ("dave", "carol")].enumerated() {
            let now = Int64(20 + 10 * round)
            try AcrobitsAccountTable.saveTogether(
                [report(first, nil, [4], at: now + 1, spelling: hex), report(second, nil, [4], at: now)], in: database)
            let token = Fixture.apnsToken(4)
            let state = try state(keptIDsUpTo: .max, in: database)
            XCTAssertEqual(
                state.filter { $0.hasPrefix("device|") },
                ["device|\(Fixture.apnsAppID.rawValue)|\(token.hex)|\(token.base64)|apns|NULL|10|\(now)|1"], second)
            XCTAssertEqual(state.filter { $0.hasPrefix("link|") }, links, "no link changes")
        }
    }

    /// A new account reporting a token another account has already: the existing device
    /// (its id and creation time) records the report and gains a second owner.
    func testANewAccountOnAnotherAccountsTokenSharesItsDevice() throws {
        let database = try openPostgreSQLDatabaseWithAPNsApp()
        try saveOneByOne([report("oscar", "o", [13], at: 10)], in: database)
        try AcrobitsAccountTable.saveTogether(
            [report("pia", "p", [13, 15], at: 20), report("quinn", "q", [16], at: 21)], in: database)

        let app = Fixture.apnsAppID.rawValue
        let (old, new) = (Fixture.apnsToken(13), Fixture.apnsToken(15))
        let state = try state(keptIDsUpTo: 1, in: database)
        XCTAssertEqual(
            state.filter { $0.contains(old.hex) || $0.contains(new.hex) },
            [
                "device|\(app)|\(old.hex)|\(old.base64)|apns|NULL|10|20|1",
                "device|\(app)|\(new.hex)|\(new.base64)|apns|NULL|20|20|new",
                "link|oscar|calls|o|10|\(app)|\(old.hex)|1",
                "link|pia|calls|p|20|\(app)|\(old.hex)|1",
                "link|pia|msgs|p|20|\(app)|\(new.hex)|new",
            ])
        XCTAssertEqual(state.count, 7, "quinn's device and link too: \(state)")
    }

    /// A repeated report's device that no longer takes the UPDATE (housekeeping deleted it
    /// after the batch read its links; here a trigger skips its row): the batch fails as a
    /// whole, leaves nothing, and the store runs each report alone.
    func testARepeatedReportWhoseDeviceIsNotUpdatedFailsTheBatch() throws {
        let database = try openPostgreSQLDatabaseWithAPNsApp()
        try saveOneByOne([report("alice", "a", [1], at: 10), report("bob", "b", [2], at: 10)], in: database)
        try database.execute(
            """
            CREATE FUNCTION skip_vanishing() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                IF NEW.reported_token = 'vanishing' THEN RETURN NULL; END IF;
                RETURN NEW;
            END $$;
            CREATE TRIGGER skip_vanishing BEFORE UPDATE ON devices FOR EACH ROW EXECUTE FUNCTION skip_vanishing();
            """)
        // A later day, so that alice's report writes her device too.
        let later = RetentionPolicy.day + 20
        let batch = [
            report("alice", nil, [1], at: later), report("bob", nil, [2], at: later, spelling: { _ in "vanishing" }),
        ]
        let before = try state(keptIDsUpTo: .max, in: database)
        XCTAssertThrowsError(try AcrobitsAccountTable.saveTogether(batch, in: database)) { error in
            XCTAssertEqual((error as? PostgreSQLError)?.sqlState, "40001", "\(error)")
        }
        XCTAssertEqual(try state(keptIDsUpTo: .max, in: database), before, "alice's report was rolled back too")

        let store = try XCTUnwrap(try makeStore() as? PostgreSQLStore)
        XCTAssertEqual(store.saveReports(batch).map { $0 == nil }, [true, true])
        let alice = Fixture.apnsToken(1)
        XCTAssertTrue(
            try state(keptIDsUpTo: .max, in: database).contains {
                $0.hasPrefix("device|\(Fixture.apnsAppID.rawValue)|\(alice.hex)|") && $0.hasSuffix("|10|\(later)|1")
            }, "alice's report, written alone")
    }

    /// The batch's statements are cached per connection, the first ones while the tables are
    /// empty and analysed as such. Grown since, a call must still find rows through the
    /// indexes: a sequential scan of devices or acrobits_accounts is a plan that reads the
    /// whole table on every call (what made the first set-based version 20 times slower).
    func testTheBatchKeepsProbingIndexesAfterTheTablesGrow() throws {
        let database = try openPostgreSQLDatabaseWithAPNsApp()
        try database.execute("ANALYZE devices; ANALYZE acrobits_accounts")
        func newAccounts(_ range: Range<Int>, at now: Int64) -> [AccountReport] {
            range.map { n in
                let tokens = [AcrobitsChannel.calls, .msgs].enumerated().map { index, channel in
                    let token = DeviceToken(
                        bytes: withUnsafeBytes(of: UInt32(n * 2 + index).bigEndian, Array.init)
                            + [UInt8](repeating: 9, count: 28))
                    return ChannelToken(
                        channel: channel, appID: Fixture.apnsAppID, token: token, reportedToken: token.base64)
                }
                return AccountReport(selector: "account-\(n)", username: "u\(n)", tokens: tokens, now: now)
            }
        }
        // Ten calls while the tables hold a few rows, past the five custom plans after which a
        // connection may keep a generic one: each with new accounts, repeated ones and a new
        // username (so that every statement of the batch runs).
        for call in 0..<10 {
            var batch = newAccounts(max(0, call * 2 - 4)..<call * 2 + 2, at: Int64(10 + call))
            batch[0].username = "warm-\(call)"
            try AcrobitsAccountTable.saveTogether(batch, in: database)
        }
        for start in stride(from: 20, to: 1_500, by: 64) {
            try AcrobitsAccountTable.saveTogether(newAccounts(start..<min(start + 64, 1_500), at: 20), in: database)
        }
        XCTAssertEqual(try count("devices", in: database), 3_000)

        var batch = newAccounts(0..<40, at: 30) + newAccounts(1_500..<1_520, at: 30)
        batch[3].username = "renamed"
        batch[4].tokens[1] = ChannelToken(
            channel: .msgs, appID: Fixture.apnsAppID, token: Fixture.apnsToken(77), reportedToken: "moved")
        // The backend's counts of this transaction, and of earlier ones not yet sent to the
        // statistics (such as the count above): what the batch adds is the difference.
        func scans() throws -> [String: (sequential: Int64, index: Int64)] {
            try database.withStatement(
                """
                SELECT relname, seq_scan, coalesce(idx_scan, 0) FROM pg_stat_xact_user_tables
                WHERE schemaname = current_schema() AND relname IN ('devices', 'acrobits_accounts')
                """
            ) { row in
                var scans: [String: (sequential: Int64, index: Int64)] = [:]
                while try row.step() { scans[row.string(0) ?? ""] = (row.int64(1), row.int64(2)) }
                return scans
            }
        }
        try database.execute("BEGIN")
        let before = try scans()
        try AcrobitsAccountTable.saveTogether(batch, in: database)
        let after = try scans()
        try database.execute("COMMIT")
        for table in ["devices", "acrobits_accounts"] {
            let (before, after) = (before[table] ?? (0, 0), try XCTUnwrap(after[table], table))
            XCTAssertEqual(after.sequential - before.sequential, 0, "sequential scans of \(table)")
            XCTAssertGreaterThan(after.index - before.index, 0, "index scans of \(table)")
        }
        XCTAssertEqual(try count("devices", in: database), 3_040, "20 new accounts of two devices; one channel moved, its old device went")
    }
}
