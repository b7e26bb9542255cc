import Foundation
import PushCore
import XCTest

@testable import PushStore

/// `pushgate export` / `import` at the store: every table covered, a round trip of every
/// dialect's data into a second empty store of the same engine, and every refusal leaving
/// the target empty. Runs on SQLite, and on PostgreSQL in scripts/test's second pass.
final class TransferTests: StoreTestCase {
    /// The second store's schema on PostgreSQL, dropped after the test.
    private var secondSchema: String?

    override func tearDownWithError() throws {
        if let url = Self.postgreSQLURL, let secondSchema {
            try PostgreSQLConnection(configuration: PostgreSQLConfiguration(url: url))
                .execute("DROP SCHEMA \(PostgreSQLConnection.quoteIdentifier(secondSchema)) CASCADE")
        }
        try super.tearDownWithError()
    }

    /// A second empty store, migrated, on the same engine: the import's target.
    private func makeTarget() throws -> any StoreUnderTest & StoreTransfer {
        if let url = Self.postgreSQLURL {
            let schema = "target_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
            try PostgreSQLConnection(configuration: PostgreSQLConfiguration(url: url))
                .execute("CREATE SCHEMA \(PostgreSQLConnection.quoteIdentifier(schema))")
            secondSchema = schema
            let store = PostgreSQLStore(configuration: PostgreSQLConfiguration(url: url, schema: schema))
            try store.migrate()
            return store
        }
        let store = try SQLiteStore(path: directory.appendingPathComponent("target.sqlite").path)
        try store.migrate()
        return store
    }

    private func export(_ store: any StoreUnderTest) throws -> [String] {
        var lines: [String] = []
        _ = try (store as! any StoreTransfer).exportStore { lines.append($0) }
        return lines
    }

    @discardableResult
    private func importLines(_ lines: [String], into target: any StoreTransfer) throws -> TransferSummary {
        var iterator = lines.makeIterator()
        return try target.importStore(nextLine: { iterator.next().map { Substring($0) } }, progressInterval: 1) { _ in }
    }

    // MARK: Coverage

    /// Every table and column of the migrated schema is exported, in the schema's column
    /// order: a migration that adds one fails here until `TransferTable.all` lists it.
    func testTheExportCoversEveryTableAndColumnOfTheSchema() throws {
        _ = try makeStore()
        let database = try openDatabase()
        let schemaTables = try tables(in: database)
        let exported = TransferTable.all.map(\.name)
        XCTAssertEqual(
            Set(schemaTables).subtracting(TransferTable.notExported), Set(exported),
            "tables of the schema and of TransferTable.all differ: list a new table in TransferTable.all")
        for table in TransferTable.all {
            XCTAssertEqual(
                try columns(of: table.name, in: database), table.columns.map(\.name),
                "\(table.name): TransferTable.all must list every column, in the schema's order")
            for key in table.key {
                XCTAssertTrue(table.columns.contains { $0.name == key }, "\(table.name)'s key \(key) is no column")
            }
        }
        XCTAssertEqual(Set(TransferTable.all.map(\.type)).count, TransferTable.all.count, "two tables share a line type")
    }

    private func tables(in database: any SQLConnection) throws -> [String] {
        let sql = self.sql(
            sqlite: "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name",
            postgresql: "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() ORDER BY table_name")
        return try strings(sql, in: database)
    }

    private func columns(of table: String, in database: any SQLConnection) throws -> [String] {
        let sql = self.sql(
            sqlite: "SELECT name FROM pragma_table_info('\(table)') ORDER BY cid",
            postgresql: """
                SELECT column_name FROM information_schema.columns
                WHERE table_schema = current_schema() AND table_name = '\(table)' ORDER BY ordinal_position
                """)
        return try strings(sql, in: database)
    }

    private func strings(_ sql: String, in database: some SQLConnection) throws -> [String] {
        try database.withStatement(sql) { row in
            var names: [String] = []
            while try row.step() { names.append(row.string(0) ?? "") }
            return names
        }
    }

    // MARK: Round trip

    /// Every dialect's owners and subscriptions, users, keys, provider tokens and queued pushes.
    private func fill(_ store: any StoreUnderTest) throws {
        var apns = Fixture.apnsApp
        apns.appKey = "instance-1"
        try store.addApp(apns, replacing: false)
        try store.addApp(Fixture.fcmApp, replacing: false)
        let certificateApp = RegisteredApp(
            id: AppID("TEAM123456.de.cospace.app")!,
            credentials: .apnsCertificate(certificatePEM: "-----BEGIN CERTIFICATE-----\nx\n", privateKeyPEM: "k\"\\\n"),
            apnsTopic: "de.cospace.app", sandbox: false)
        try store.addApp(certificateApp, replacing: false)

        try store.saveAccountTokens(
            selector: "alice", username: "Alice \"Ä\" ☎",
            tokens: [Fixture.channelToken(.calls, seed: 1), Fixture.channelToken(.msgs, seed: 2)])
        try store.saveAccountTokens(selector: "bob", username: nil, tokens: [Fixture.channelToken(.calls, seed: 3)])
        // A device of an app nobody registered: kept, with no platform.
        let orphan = AppID("com.example.unregistered")!
        try store.saveAccountTokens(
            selector: "carol", username: "c",
            tokens: [ChannelToken(channel: .calls, appID: orphan, token: Fixture.apnsToken(4), reportedToken: "raw\ttoken")])

        let user = try store.addUser(name: "dave", passwordHash: "pbkdf2-sha256$1000$c2FsdA$aGFzaA")
        let cospaceToken = Fixture.apnsToken(5)
        _ = try store.addAPNsToken(
            userID: user.id,
            CospaceAPNsRegistration(
                token: cospaceToken, reportedToken: cospaceToken.hex, applicationID: "TEAM123456.de.cospace.app",
                sandbox: true, apnsTopic: "de.cospace.app.voip"))
        try store.addRegistrationID(userID: user.id, appID: Fixture.fcmAppID, registrationID: "fcm-registration-1")

        let beamsToken = Fixture.apnsToken(6)
        try store.addBeamsClient(id: "client-1", appID: Fixture.apnsAppID, token: beamsToken, reportedToken: beamsToken.hex)
        XCTAssertEqual(try store.setBeamsInterest(clientID: "client-1", appKey: "instance-1", interest: "news", subscribed: true), .done)
        XCTAssertEqual(try store.setBeamsInterest(clientID: "client-1", appKey: "instance-1", interest: "sport", subscribed: true), .done)

        let bridgeToken = Fixture.apnsToken(7)
        _ = try store.subscribe(appID: Fixture.apnsAppID, token: bridgeToken, reportedToken: bridgeToken.hex, selector: "?topics/")
        // The same device as the Beams client's, a second owner.
        _ = try store.subscribe(appID: Fixture.apnsAppID, token: beamsToken, reportedToken: beamsToken.hex, selector: "news/>")

        try store.addSenderKey(name: "pbx", digest: String(repeating: "ab", count: 32))
        try store.addSenderKey(name: "old", digest: String(repeating: "cd", count: 32))
        _ = try store.revokeSenderKey(name: "old")
        try store.archiveProviderToken(
            ArchivedProviderToken(teamID: "TEAM123456", keyID: "KEY1234567", keyFingerprint: "f1", token: "eyJ.x.y", issuedAt: 1_699_999_000))
        try store.recordAppCheck(
            AppCheckRecord(appID: Fixture.apnsAppID, checkedAt: 1_699_999_100, ok: false, detail: "403 \"InvalidProviderToken\""))

        // Queued pushes: one to every Beams interest subscriber, one to a bridge topic, then a
        // dead letter and a retry with its error.
        XCTAssertEqual(try store.publishToInterests(appIDs: [Fixture.apnsAppID], interests: ["news"], message: Outbox.message).queued, 1)
        // A publish still being queued: its cursor travels with it.
        XCTAssertEqual(
            try store.publishToInterests(
                appIDs: [Fixture.apnsAppID], interests: ["news", "sports"], message: Outbox.message, firstStep: 1),
            QueuedFanOut(queued: 1, continues: true))
        XCTAssertEqual(
            try store.enqueueTopicPush(
                OutboxMessage(
                    source: "bridge:topic", apns: APNsMessage(payload: Array("{}".utf8), pushType: .voip, priority: 5),
                    fcm: FCMMessage(fields: ["data": .object(["a": .string("b")])])),
                subscribedToAnyOf: ["?topics/"], within: nil
            ).queued, 1)
        let devices = try store.devices().map(\.id)
        XCTAssertEqual(try store.enqueue(OutboxMessage(source: "cospace:event", apns: APNsMessage(payload: [0, 1, 255])), deviceIDs: devices), devices.count)
        let claimed = try store.claimDue(limit: 2, now: Outbox.storeNow, lease: 60_000)
        XCTAssertEqual(claimed.count, 2)
        try store.complete(
            [(claimed[0], .dead(error: "BadDeviceToken")), (claimed[1], .retry(at: Outbox.storeNow + 5000, error: "429"))],
            now: Outbox.storeNow)
    }

    func testARoundTripCarriesEveryDialectAndTheImportedStoreAnswers() throws {
        let source = try makeStore()
        try fill(source)
        let exported = try export(source)
        let target = try makeTarget()
        let summary = try importLines(exported, into: target)

        XCTAssertEqual(summary.counts["app"], 3)
        XCTAssertEqual(summary.counts["device"], try source.devices().count)
        XCTAssertEqual(summary.counts["outbox_row"], try source.pendingCount() + source.deadLetters(limit: 100).count)
        for table in TransferTable.all where table.name != "delivery_log" {
            XCTAssertGreaterThan(summary.counts[table.type] ?? 0, 0, "the fixture has no \(table.name) row: it tests nothing")
        }

        // The target's own export is the source's, line for line, but for the header's time,
        // once row ids are replaced by what they name.
        XCTAssertEqual(try normalized(export(target)), try normalized(exported))

        // And it answers as the source did.
        XCTAssertEqual(try target.accountDevices(selector: "alice").mapValues(\.token), try source.accountDevices(selector: "alice").mapValues(\.token))
        XCTAssertEqual(try target.apps(), try source.apps())
        XCTAssertEqual(try target.user(named: "dave")?.passwordHash, "pbkdf2-sha256$1000$c2FsdA$aGFzaA")
        XCTAssertEqual(try target.beamsInstance(appKey: "instance-1"), try source.beamsInstance(appKey: "instance-1"))
        XCTAssertEqual(try target.senderKeyName(digest: String(repeating: "ab", count: 32)), "pbx")
        XCTAssertNil(try target.senderKeyName(digest: String(repeating: "cd", count: 32)), "a revoked key came back")
        XCTAssertEqual(try target.archivedProviderToken(teamID: "TEAM123456", keyID: "KEY1234567")?.token, "eyJ.x.y")
        XCTAssertEqual(try target.deadLetters(limit: 10).map(\.lastError), ["BadDeviceToken"])
        XCTAssertEqual(try target.pendingCount(), try source.pendingCount())
        XCTAssertEqual(
            try target.devices().map { "\($0.appID.rawValue) \($0.token.hex) \($0.owners)" },
            try source.devices().map { "\($0.appID.rawValue) \($0.token.hex) \($0.owners)" })
        // The imported outbox is delivered from: its due rows are claimed with their payloads.
        let due = try target.claimDue(limit: 100, now: Outbox.storeNow + 10_000, lease: 60_000)
        let sourceDue = try source.claimDue(limit: 100, now: Outbox.storeNow + 10_000, lease: 60_000)
        XCTAssertEqual(due.map(\.notification.token), sourceDue.map(\.notification.token))
        XCTAssertEqual(due.map(\.source), sourceDue.map(\.source))
        // New rows get ids after the imported ones (PostgreSQL's identity sequences are not fooled).
        try target.saveAccountTokens(selector: "erin", username: nil, tokens: [Fixture.channelToken(.calls, seed: 9)])
        XCTAssertEqual(try target.accountDevices(selector: "erin")[.calls]?.token, Fixture.apnsToken(9))
    }

    /// The lines with the header's time and engine dropped and every device and payload id
    /// replaced by the device's app and token and the payload's place: what must survive.
    private func normalized(_ lines: [String]) throws -> [String] {
        var devices: [Int64: String] = [:]
        var payloads: [Int64: Int] = [:]
        return try lines.map { text in
            var line = try TransferLine(json: Substring(text))
            if line.type == TransferHeader.type {
                line.fields.removeAll { $0.name == "exported_at" || $0.name == "engine" }
            }
            if line.type == "device", case .integer(let id)? = line["id"], case .text(let app)? = line["app_id"],
                case .text(let token)? = line["token"]
            {
                devices[id] = "\(app) \(token)"
            }
            if line.type == "outbox_payload", case .integer(let id)? = line["id"] { payloads[id] = payloads.count }
            line.fields = line.fields.map { field in
                guard case .integer(let id) = field.value else { return field }
                switch (line.type, field.name) {
                case ("device", "id"), (_, "device_id"): return (field.name, .text(devices[id] ?? "unknown device \(id)"))
                case ("outbox_payload", "id"), (_, "payload_id"): return (field.name, .text("payload \(payloads[id] ?? -1)"))
                case ("outbox_row", "id"), ("delivery_log_entry", "id"): return (field.name, .null)
                default: return field
                }
            }
            return line.json
        }
    }

    func testAnEmptyStoreExportsAHeaderAndAnEndAndImportsToNothing() throws {
        let lines = try export(try makeStore())
        XCTAssertEqual(lines.count, 2)
        let header = try TransferLine(json: Substring(lines[0]))
        XCTAssertEqual(header.type, "pushgate-export")
        XCTAssertEqual(header["format"], .integer(1))
        XCTAssertEqual(header["schema"], .integer(Int64(try Migration.builtIn(for: Self.engine).count)))
        XCTAssertEqual(lines[1], #"{"type":"end","rows":0}"#)
        XCTAssertEqual(try importLines(lines, into: makeTarget()).rows, 0)
    }

    /// Pages of the export follow the key across page boundaries without losing or repeating
    /// a row (more devices than one page holds, and composite keys).
    func testAnExportLargerThanAPageHasEveryRowOnce() throws {
        let store = try makeStore()
        let count = 2 * PostgreSQLStore.exportPageSize + 7
        for index in 0..<count {
            let token = DeviceToken(bytes: Array("device-\(index)-padding-to-be-long".utf8))
            try store.saveAccountTokens(
                selector: "user\(index)", username: nil,
                tokens: [ChannelToken(channel: .calls, appID: Fixture.apnsAppID, token: token, reportedToken: token.hex)])
        }
        let lines = try export(store)
        let types = try lines.map { try TransferLine(json: Substring($0)).type }
        XCTAssertEqual(types.filter { $0 == "device" }.count, count)
        XCTAssertEqual(types.filter { $0 == "acrobits_account" }.count, count)
        XCTAssertEqual(Set(lines).count, lines.count, "a row was written twice")
        XCTAssertEqual(try importLines(lines, into: makeTarget()).counts["acrobits_account"], count)
    }

    /// An export into a slow pipe, or an import from one, may pause between statements for
    /// longer than the session's idle-in-transaction limit (which guards serve's connections);
    /// on PostgreSQL the transfer lifts it for its own transaction. Here the limit is 100 ms
    /// and each side pauses a whole second, once.
    func testASlowPeerDoesNotEndThePostgreSQLTransaction() throws {
        try XCTSkipIf(Self.engine != .postgresql, "PostgreSQL's idle_in_transaction_session_timeout")
        _ = try makeStore()
        let configuration = PostgreSQLConfiguration(
            url: try XCTUnwrap(Self.postgreSQLURL), schema: schema, idleInTransactionTimeoutMilliseconds: 100)
        let store = PostgreSQLStore(configuration: configuration)
        try store.saveAccountTokens(selector: "slow", username: nil, tokens: [Fixture.channelToken(.calls, seed: 1)])
        var lines: [String] = []
        _ = try store.exportStore { line in
            if lines.count == 1 { sleep(1) }
            lines.append(line)
        }
        XCTAssertEqual(lines.count, 4)

        let target = try makeTarget() as! PostgreSQLStore
        let slowTarget = PostgreSQLStore(
            configuration: PostgreSQLConfiguration(
                url: target.pool.configuration.url, schema: target.pool.configuration.schema,
                idleInTransactionTimeoutMilliseconds: 100))
        var iterator = lines.makeIterator()
        var read = 0
        let summary = try slowTarget.importStore(
            nextLine: {
                read += 1
                if read == 2 { sleep(1) }
                return iterator.next().map { Substring($0) }
            }, progressInterval: 1000, progress: { _ in })
        XCTAssertEqual(summary.rows, 2)
    }

    // MARK: Refusals

    func testANonEmptyTargetIsRefusedAndKept() throws {
        let source = try makeStore()
        try fill(source)
        let lines = try export(source)
        let target = try makeTarget()
        try target.addSenderKey(name: "present", digest: "00")
        XCTAssertThrowsError(try importLines(lines, into: target)) { error in
            XCTAssertEqual(error as? TransferError, .targetNotEmpty(table: "api_keys"))
            XCTAssertTrue("\(error)".contains("import only into a new store"), "\(error)")
        }
        XCTAssertEqual(try target.senderKeys().map(\.name), ["present"])
        XCTAssertEqual(try target.devices().count, 0)
    }

    /// Each bad input is refused naming its line, and the rows read before it are rolled back.
    func testMalformedInputIsRefusedByLineAndLeavesTheTargetEmpty() throws {
        let source = try makeStore()
        try fill(source)
        let lines = try export(source)
        let firstDevice = try XCTUnwrap(lines.firstIndex { $0.hasPrefix(#"{"type":"device""#) })
        let firstAccount = try XCTUnwrap(lines.firstIndex { $0.hasPrefix(#"{"type":"acrobits_account""#) })
        func replacing(_ index: Int, with text: String) -> [String] {
            var copy = lines
            copy[index] = text
            return copy
        }
        let cases: [(String, [String], TransferError)] = [
            ("not JSON", replacing(firstAccount, with: "{\"type\":"), .malformed(line: firstAccount + 1, "not a JSON object of strings, integers and nulls")),
            ("an unknown type", replacing(firstAccount, with: #"{"type":"gadget"}"#), .malformed(line: firstAccount + 1, #"unknown type "gadget""#)),
            ("a float", replacing(firstAccount, with: lines[firstAccount].replacingOccurrences(of: #""updated_at":1700000000"#, with: #""updated_at":1.5"#)),
             .malformed(line: firstAccount + 1, "not a JSON object of strings, integers and nulls")),
            ("a missing field", replacing(firstAccount, with: lines[firstAccount].replacingOccurrences(of: #","updated_at":1700000000"#, with: "")),
             .malformed(line: firstAccount + 1, #"the acrobits_account lacks "updated_at""#)),
            ("an unknown field", replacing(firstAccount, with: lines[firstAccount].replacingOccurrences(of: "}", with: #","colour":"red"}"#)),
             .malformed(line: firstAccount + 1, #"a acrobits_account has no field "colour""#)),
            ("a dangling device", replacing(firstAccount, with: try withField(lines[firstAccount], "device_id", .integer(999_999))),
             .malformed(line: firstAccount + 1, #""device_id" 999999 names no device of an earlier line"#)),
            ("bad base64", replacing(firstDevice, with: try withField(lines[firstDevice], "token", .text("***"))),
             .malformed(line: firstDevice + 1, #""token" is not base64"#)),
            ("a text for a number", replacing(firstAccount, with: try withField(lines[firstAccount], "updated_at", .text("now"))),
             .malformed(line: firstAccount + 1, #""updated_at" must be an integer or null, not a string"#)),
            ("a cut file", Array(lines.dropLast()), .truncated(lines: lines.count - 1)),
            ("a wrong count", replacing(lines.count - 1, with: #"{"type":"end","rows":1}"#),
             .malformed(line: lines.count, "the closing line counts integer(1) rows, the export held \(lines.count - 2)")),
            ("a line after the end", lines + [lines[firstAccount]], .malformed(line: lines.count + 1, "a line after the export's closing line")),
            ("another schema", replacing(0, with: try withField(lines[0], "schema", .integer(1))),
             .malformed(line: 1, "the export is of schema version 1, this pushgate's is \(try Migration.builtIn(for: Self.engine).count): export and import with the same pushgate version (run the newer one's `pushgate migrate` on the source first)")),
            ("no header", Array(lines.dropFirst()), .malformed(line: 1, #"the first line is a "app", not a pushgate export's header ("pushgate-export")"#)),
            ("nothing", [], .malformed(line: 1, "the input is empty, not a pushgate export")),
        ]
        let target = try makeTarget()
        for (name, input, expected) in cases {
            XCTAssertThrowsError(try importLines(input, into: target), name) { error in
                XCTAssertEqual(error as? TransferError, expected, name)
            }
            XCTAssertEqual(try target.devices().count, 0, "\(name) left devices behind")
            XCTAssertEqual(try target.apps().count, 0, "\(name) left apps behind")
        }
        // A row the database itself refuses (an app of no platform) names its line too.
        let badApp = try withField(lines[1], "platform", .text("windows"))
        XCTAssertThrowsError(try importLines(replacing(1, with: badApp), into: target)) { error in
            guard case .refused(let line, _)? = error as? TransferError else { return XCTFail("\(error)") }
            XCTAssertEqual(line, 2)
        }
        // After every refusal the target is still empty, so the whole export goes in.
        XCTAssertEqual(try importLines(lines, into: target).rows, lines.count - 2)
    }

    private func withField(_ text: String, _ name: String, _ value: TransferValue) throws -> String {
        var line = try TransferLine(json: Substring(text))
        // Decoded fields are sorted by name; the order does not matter to import.
        line.fields = line.fields.map { $0.name == name ? (name, value) : $0 }
        return line.json
    }

    /// Text that JSON must escape survives both ways.
    func testLinesEscapeWhatJSONMust() throws {
        let line = TransferLine(type: "t", fields: [("s", .text("a\"b\\c\n\t\u{1}é☎")), ("n", .integer(-5)), ("z", .null)])
        XCTAssertEqual(line.json, #"{"type":"t","s":"a\"b\\c\n\t\u0001é☎","n":-5,"z":null}"#)
        let parsed = try TransferLine(json: Substring(line.json))
        XCTAssertEqual(parsed["s"], .text("a\"b\\c\n\t\u{1}é☎"))
        XCTAssertEqual(parsed["n"], .integer(-5))
        XCTAssertEqual(parsed["z"], .null)
    }
}
