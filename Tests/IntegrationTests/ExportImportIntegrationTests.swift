import Foundation
import MockUpstream
import PushTesting
import XCTest

/// `pushgate export` and `pushgate import` through the CLI, on stores filled through the real
/// nginx and `serve` with every dialect's data: SQLite → SQLite, and SQLite → PostgreSQL →
/// SQLite (with PUSHGATE_TEST_DATABASE_URL), each export equal to the one before it but for
/// row ids, and the imported store serving: a queued push goes out, a pnm2 send by Selector
/// finds the reported token, a cospace user logs in, a Beams publish reaches its interest.
final class ExportImportIntegrationTests: XCTestCase, RunsOnPostgreSQL {
    static let softphone = "com.example.softphone"
    static let android = "com.example.android"
    static let cospaceApp = "39JSDKGJ38.de.cospace.app"
    static let instance = "instance-1"
    static let selector = "12869E0E6E553673C54F29105A0647204C416A2A:7C3A0D14"
    static let callsHex = "a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebfc0"
    static let cospaceHex = "a6461732069737d42065496e" + String(repeating: "0", count: 35) + "f39ad"
    static let beamsHex = String(repeating: "be", count: 32)
    static let bridgeBytes = (0..<32).map { UInt8(0xA0 + $0) }
    static let gcmToken = "dXk:APA91bExport-token_1"

    private var apns: MockAPNs!
    private var fcm: MockFCM!
    private var instances: [PushgateInstance] = []
    private var folder: URL!
    private var senderKey = ""
    private var aliceID = ""

    override func setUpWithError() throws {
        apns = try MockAPNs(configuration: MockAPNsConfiguration(providerKeys: [try .fixture]))
        fcm = try MockFCM(configuration: MockFCMConfiguration(serviceAccounts: [try .fixture]))
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("pushgate-export-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDown() {
        for instance in instances { instance.stop() }
        instances = []
        apns?.shutdown()
        fcm?.shutdown()
        try? FileManager.default.removeItem(at: folder)
    }

    private static var postgreSQLAvailable: Bool {
        !(ProcessInfo.processInfo.environment["PUSHGATE_TEST_DATABASE_URL"] ?? "").isEmpty
    }

    /// A pushgate pointed at the mocks, on SQLite (`postgreSQL: false`, even when the suite runs
    /// on PostgreSQL) or on the test server's PostgreSQL, in a schema of its own.
    private func makeInstance(postgreSQL: Bool, migrated: Bool = true) throws -> PushgateInstance {
        var environment = PushgateInstance.upstreams(apns: apns, fcm: fcm)
        environment["PUSHGATE_FCM_SENDER_ID"] = "4815162342"
        environment["PUSHGATE_COSPACE_FCM_APP"] = Self.android
        environment["PUSHGATE_BRIDGE_APNS_APP"] = Self.softphone
        environment["PUSHGATE_BRIDGE_FCM_APP"] = Self.android
        if !postgreSQL { environment["PUSHGATE_DATABASE_URL"] = "" }
        let instance = try PushgateInstance(environment: environment, migrated: migrated)
        instances.append(instance)
        return instance
    }

    @discardableResult
    private func cli(_ instance: PushgateInstance, _ arguments: [String], stdin: String? = nil, file: StaticString = #filePath, line: UInt = #line)
        throws -> PushgateInstance.Output
    {
        let output = try instance.run(PushgateInstance.executable.path, arguments, stdin: stdin)
        XCTAssertEqual(output.status, 0, "pushgate \(arguments.joined(separator: " ")): \(output.stderr)", file: file, line: line)
        return output
    }

    private var bearer: [String: String] { ["Authorization": "Bearer \(senderKey)"] }
    private var alice: [String: String] { ["Authorization": "Basic " + Data("alice:alice-secret".utf8).base64EncodedString()] }

    private func json(_ instance: PushgateInstance, _ method: String, _ path: String, _ body: String, headers: [String: String] = [:])
        throws -> HTTPClient.Response
    {
        try instance.client.request(
            method, path, headers: headers.merging(["Content-Type": "application/json"]) { own, _ in own }, body: Array(body.utf8))
    }

    /// The source: apps, and through the endpoints an Acrobits account, a cospace user's two
    /// devices, a Beams client with interests, a bridge subscription; a sender key; then, with
    /// serve stopped, a cospace event queued for both of the user's devices.
    private func fillSource() throws -> PushgateInstance {
        let source = try makeInstance(postgreSQL: false)
        try source.addMockAPNsApp(id: Self.softphone, ["--topic", Self.softphone, "--app-key", Self.instance])
        try source.addMockAPNsApp(id: Self.cospaceApp, ["--topic", "de.cospace.app"])
        try source.addMockFCMApp(id: Self.android, fcm: fcm)
        aliceID = try cli(source, ["users", "add", "alice", "--password-stdin"], stdin: "alice-secret\n").stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
        try source.start()

        let calls = Data(Self.callsHex.hexBytes).base64EncodedString().addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let reported = try source.client.get("/token/?selector=\(Self.selector)&token_calls=\(calls)&appid_calls=\(Self.softphone)")
        XCTAssertEqual(reported.status, 200, reported.text)

        let apnsAdd = try json(
            source, "POST", "/api/push",
            #"{"system":"apns","action":"add","device_token":"\#(Self.cospaceHex)","application_id":"\#(Self.cospaceApp)","sandbox":true,"apns_topic":"de.cospace.app.voip"}"#,
            headers: alice)
        XCTAssertEqual(apnsAdd.status, 200, apnsAdd.text)
        let gcmAdd = try json(source, "POST", "/api/push", #"{"system":"gcm","action":"add","registration_id":"\#(Self.gcmToken)"}"#, headers: alice)
        XCTAssertEqual(gcmAdd.status, 200, gcmAdd.text)

        let created = try json(
            source, "POST", "/client_api/v1/clients", #"{"app_key":"\#(Self.instance)","platform_type":"apns","token":"\#(Self.beamsHex)"}"#)
        XCTAssertEqual(created.status, 201, created.text)
        let client = try XCTUnwrap((try JSONSerialization.jsonObject(with: Data(created.body)) as? [String: Any])?["id"] as? String)
        for interest in ["news", "sport"] {
            let subscribed = try json(
                source, "POST", "/client_api/v1/clients/\(client)/interests/\(interest)", #"{"app_key":"\#(Self.instance)"}"#)
            XCTAssertEqual(subscribed.status, 200, subscribed.text)
        }

        let destination = "apns://" + Data(Self.bridgeBytes).base64EncodedString()
        let pnsub = try json(source, "POST", "/push/notifications", #"{"pnsub":{"destination":"\#(destination)","topic":"news"}}"#)
        XCTAssertEqual(pnsub.status, 200, pnsub.text)

        senderKey = try cli(source, ["keys", "add", "pbx"]).stdout.split(separator: "\n").first.map(String.init) ?? ""
        XCTAssertFalse(senderKey.isEmpty)
        source.stop()

        // Queued while no serve delivers: the export must carry it, the target send it.
        try cli(source, ["event", "--owner", aliceID, "--message", "fax_new", "--field", "fax=17", "--field", "phone=+4930123", "--field", "page_count=2"])
        let status = try cli(source, ["outbox", "status"]).stdout
        XCTAssertTrue(status.contains("2"), status)
        return source
    }

    /// `pushgate export -o FILE` of `instance`, read back.
    private func export(_ instance: PushgateInstance, name: String) throws -> String {
        let path = folder.appendingPathComponent(name).path
        let output = try cli(instance, ["export", "--output", path])
        XCTAssertTrue(output.stdout.isEmpty, "export -o wrote to stdout: \(output.stdout.prefix(200))")
        XCTAssertTrue(output.stderr.contains("exported "), output.stderr)
        let mode = (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue
        XCTAssertEqual(mode, 0o600, "an export holds private keys and password hashes")
        XCTAssertFalse(FileManager.default.fileExists(atPath: path + ".partial"))
        return try String(contentsOfFile: path, encoding: .utf8)
    }

    private func importExport(_ text: String, named name: String, into instance: PushgateInstance) throws {
        let path = folder.appendingPathComponent(name).path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        let output = try cli(instance, ["import", path])
        XCTAssertTrue(output.stderr.hasPrefix("imported "), output.stderr)
        // stderr is a pipe here, not a terminal: no progress line, no carriage return.
        XCTAssertFalse(output.stderr.contains("\r"), output.stderr)
    }

    // MARK: The round trips

    func testSQLiteExportImportsIntoANewSQLiteStoreThatServes() throws {
        let source = try fillSource()
        let exported = try export(source, name: "source.jsonl")
        let target = try makeInstance(postgreSQL: false, migrated: false)
        try importExport(exported, named: "in.jsonl", into: target)
        XCTAssertEqual(try normalized(export(target, name: "target.jsonl")), try normalized(exported))
        try assertServes(target)
    }

    func testSQLiteToPostgreSQLToSQLite() throws {
        try XCTSkipUnless(Self.postgreSQLAvailable, "needs PUSHGATE_TEST_DATABASE_URL (scripts/test's PostgreSQL pass sets it)")
        let source = try fillSource()
        let fromSQLite = try export(source, name: "sqlite.jsonl")
        XCTAssertTrue(fromSQLite.hasPrefix(#"{"type":"pushgate-export","format":1,"#), String(fromSQLite.prefix(100)))

        let postgreSQL = try makeInstance(postgreSQL: true, migrated: false)
        try importExport(fromSQLite, named: "to-postgresql.jsonl", into: postgreSQL)
        let fromPostgreSQL = try export(postgreSQL, name: "postgresql.jsonl")
        XCTAssertTrue(fromPostgreSQL.contains(#""engine":"postgresql""#))
        XCTAssertEqual(try normalized(fromPostgreSQL), try normalized(fromSQLite))

        let back = try makeInstance(postgreSQL: false, migrated: false)
        try importExport(fromPostgreSQL, named: "to-sqlite.jsonl", into: back)
        XCTAssertEqual(try normalized(export(back, name: "back.jsonl")), try normalized(fromSQLite))

        try assertServes(postgreSQL)
    }

    /// The imported store at work: the queued event goes out to both of alice's devices, a
    /// pnm2 send naming only the Selector reaches the reported token, alice logs in and sees
    /// her devices, a re-report of the account finds its device, a Beams publish reaches the
    /// interest's client and the bridge topic's subscriber.
    private func assertServes(_ instance: PushgateInstance) throws {
        try instance.start()
        try waitUntil("the queued event at the mock APNs and FCM") {
            self.apns.requests.contains { $0.path == "/3/device/\(Self.cospaceHex)" }
                && self.fcm.sendRequests.contains { String(decoding: $0.body ?? [], as: UTF8.self).contains(Self.gcmToken) }
        }

        let send = try json(
            instance, "POST", "/pnm2/send",
            #"{"Selector":"\#(Self.selector)","AppId":"\#(Self.softphone)","verb":"NotifyTextMessage","Message":"after the move"}"#,
            headers: bearer)
        XCTAssertEqual(send.status, 200, send.text)
        XCTAssertTrue(send.text.contains(#""code": 200"#), send.text)
        try waitUntil("the pnm2 push to the reported token") {
            self.apns.requests.contains { $0.path == "/3/device/\(Self.callsHex)" }
        }

        let listing = try instance.client.get("/api/push", headers: alice)
        XCTAssertEqual(listing.status, 200, listing.text)
        XCTAssertTrue(listing.text.contains(Self.cospaceHex) && listing.text.contains(Self.gcmToken), listing.text)

        let devicesBefore = try instance.storedDevices().count
        let calls = Data(Self.callsHex.hexBytes).base64EncodedString().addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let again = try instance.client.get("/token/?selector=\(Self.selector)&token_calls=\(calls)&appid_calls=\(Self.softphone)")
        XCTAssertEqual(again.status, 200, again.text)
        XCTAssertEqual(try instance.storedDevices().count, devicesBefore, "the re-report made a second device")

        let published = try json(
            instance, "POST", "/publish_api/v1/instances/\(Self.instance)/publishes",
            #"{"interests":["news"],"apns":{"aps":{"alert":"moved"}}}"#, headers: bearer)
        XCTAssertEqual(published.status, 200, published.text)
        try waitUntil("the Beams publish to the client") {
            self.apns.requests.contains { $0.path == "/3/device/\(Self.beamsHex)" }
        }
        let bridgeHex = Self.bridgeBytes.map { String(format: "%02x", $0) }.joined()
        let topic = try json(instance, "POST", "/push/topics/news", #"{"apns":{"aps":{"alert":"moved"}}}"#, headers: bearer)
        XCTAssertEqual(topic.status, 202, topic.text)
        XCTAssertEqual(topic.text, #"{"response":{"content":{"queued":1,"topic":"news"}}}"#)
        try waitUntil("the bridge publish to the subscriber") {
            self.apns.requests.contains { $0.path == "/3/device/\(bridgeHex)" }
        }
    }

    private func waitUntil(_ what: String, timeout: TimeInterval = 30, _ condition: () -> Bool) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if condition() { return }
            usleep(50_000)
        }
        XCTFail("timed out waiting for \(what)")
        throw PushgateInstance.Failure("timed out waiting for \(what)")
    }

    /// The export's lines with what may differ between stores taken out: the header's time
    /// and engine, and row ids, each device id replaced by the device's app and token and each
    /// payload id by the payload's place. Compared as JSON with sorted keys.
    private func normalized(_ text: String) throws -> [String] {
        var devices: [Int: String] = [:]
        var payloads: [Int: String] = [:]
        return try text.split(separator: "\n").map { line in
            var object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], String(line))
            switch object["type"] as? String {
            case "pushgate-export":
                object["exported_at"] = nil
                object["engine"] = nil
            case "device":
                let id = try XCTUnwrap(object["id"] as? Int)
                devices[id] = "\(object["app_id"] ?? "") \(object["token"] ?? "")"
                object["id"] = devices[id]
            case "outbox_payload":
                let id = try XCTUnwrap(object["id"] as? Int)
                payloads[id] = "payload \(payloads.count)"
                object["id"] = payloads[id]
            case "outbox_row", "delivery_log_entry":
                object["id"] = nil
            default: break
            }
            if let id = object["device_id"] as? Int { object["device_id"] = devices[id] ?? "no device \(id)" }
            if let id = object["payload_id"] as? Int { object["payload_id"] = payloads[id] ?? "no payload \(id)" }
            return String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
        }
    }

    // MARK: Memory

    /// Export streams: its peak memory (GNU time's maximum resident set) hardly moves when the
    /// store grows fourfold, from 25,000 devices (and as many Acrobits accounts) to 100,000,
    /// while the export itself grows by some 30 MB. A memory that held the store would grow
    /// with it.
    func testExportMemoryDoesNotGrowWithTheStore() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/time"),
            FileManager.default.isExecutableFile(atPath: "/usr/bin/sqlite3")
        else {
            throw XCTSkip("needs GNU time and sqlite3 (scripts/test installs both)")
        }
        func peak(devices: Int) throws -> (kilobytes: Int, bytes: Int) {
            let instance = try makeInstance(postgreSQL: false)
            let fill = try instance.run(
                "/usr/bin/sqlite3",
                [
                    instance.database,
                    """
                    WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(devices))
                    INSERT INTO devices (app_id, token, reported_token, created_at, updated_at)
                    SELECT 'com.example.app', randomblob(32), hex(randomblob(32)), 1700000000, 1700000000 FROM n;
                    INSERT INTO acrobits_accounts (selector, channel, device_id, updated_at)
                    SELECT 'selector-' || id, 'calls', id, 1700000000 FROM devices;
                    """,
                ])
            XCTAssertEqual(fill.status, 0, fill.stderr)
            let path = folder.appendingPathComponent("memory-\(devices).jsonl").path
            let measured = try instance.run("/usr/bin/time", ["-f", "peak %M", PushgateInstance.executable.path, "export", "-o", path])
            XCTAssertEqual(measured.status, 0, measured.stderr)
            XCTAssertTrue(measured.stderr.contains("exported \(devices) devices, \(devices) acrobits_accounts"), measured.stderr)
            let line = try XCTUnwrap(measured.stderr.split(separator: "\n").last { $0.hasPrefix("peak ") }, measured.stderr)
            let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? 0
            try FileManager.default.removeItem(atPath: path)
            return (Int(line.dropFirst("peak ".count)) ?? 0, size)
        }
        let small = try peak(devices: 25_000)
        let large = try peak(devices: 100_000)
        XCTAssertGreaterThan(large.bytes - small.bytes, 30_000_000, "the export did not grow: the fixture tests nothing")
        XCTAssertLessThan(
            large.kilobytes - small.kilobytes, 12_000,
            "export's peak memory grew from \(small.kilobytes) KiB to \(large.kilobytes) KiB with the store")
    }

    // MARK: Refusals and the terminal

    func testImportRefusesANonEmptyStoreAndBadInputByLineLeavingTheStoreEmpty() throws {
        let source = try makeInstance(postgreSQL: false)
        try cli(source, ["keys", "add", "pbx"])
        let exported = try cli(source, ["export"]).stdout
        XCTAssertTrue(exported.hasSuffix(#"{"type":"end","rows":1}"# + "\n"), exported)

        let refused = try source.run(PushgateInstance.executable.path, ["import"], stdin: exported)
        XCTAssertEqual(refused.status, 1)
        XCTAssertTrue(refused.stderr.contains("the target store is not empty (api_keys has rows)"), refused.stderr)

        let target = try makeInstance(postgreSQL: Self.postgreSQLAvailable, migrated: false)
        var lines = exported.split(separator: "\n").map(String.init)
        lines[1] = lines[1].replacingOccurrences(of: #""revoked_at":null"#, with: #""revoked_at":"never""#)
        let malformed = try target.run(PushgateInstance.executable.path, ["import", "-"], stdin: lines.joined(separator: "\n") + "\n")
        XCTAssertEqual(malformed.status, 1)
        XCTAssertTrue(
            malformed.stderr.contains(#"import failed, nothing was imported: line 2: "revoked_at" must be an integer or null, not a string"#),
            malformed.stderr)
        let cut = try target.run(PushgateInstance.executable.path, ["import"], stdin: exported.split(separator: "\n").dropLast().joined(separator: "\n"))
        XCTAssertEqual(cut.status, 1)
        XCTAssertTrue(cut.stderr.contains("it was cut short"), cut.stderr)
        XCTAssertEqual(try cli(target, ["keys", "list"]).stdout.contains("pbx"), false, "a failed import left a key behind")

        // The same input, whole, goes in afterwards: every failure left the store empty.
        try cli(target, ["import"], stdin: exported)
        XCTAssertTrue(try cli(target, ["keys", "list"]).stdout.contains("pbx"))
        let missing = try target.run(PushgateInstance.executable.path, ["import", folder.appendingPathComponent("nope.jsonl").path])
        XCTAssertEqual(missing.status, 1)
        XCTAssertTrue(missing.stderr.contains("cannot open"), missing.stderr)
    }

    /// On a terminal (a pseudo-terminal made by `script`), import rewrites one progress line
    /// on stderr and ends it before its summary.
    func testImportShowsAProgressLineOnATerminal() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/script") else {
            throw XCTSkip("util-linux's script is not installed")
        }
        let source = try makeInstance(postgreSQL: false)
        // 2,500 sender keys: more than the 1,000 lines between progress reports.
        var lines = [try cli(source, ["export"]).stdout.split(separator: "\n").first.map(String.init) ?? ""]
        let count = 2_500
        for index in 0..<count {
            lines.append(#"{"type":"sender_key","name":"key-\#(index)","key_hash":"\#(String(format: "%064x", index))","created_at":1700000000,"revoked_at":null,"app_scope":null,"dialect_scope":null,"is_operator":0,"beams_secret":null}"#)
        }
        lines.append(#"{"type":"end","rows":\#(count)}"#)
        let path = folder.appendingPathComponent("many.jsonl").path
        try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)

        let target = try makeInstance(postgreSQL: false, migrated: false)
        let command = "\(PushgateInstance.executable.path) import \(path)"
        let output = try target.run("/usr/bin/script", ["-q", "-e", "-c", command, "/dev/null"])
        XCTAssertEqual(output.status, 0, output.stdout + output.stderr)
        XCTAssertTrue(output.stdout.contains("\rimporting: 999 rows"), output.stdout.debugDescription)
        XCTAssertTrue(output.stdout.contains("imported \(count) api_keys"), output.stdout)
        XCTAssertEqual(try cli(target, ["keys", "list"]).stdout.components(separatedBy: "key-").count - 1, count)
    }
}

extension String {
    /// The bytes of a hex string.
    fileprivate var hexBytes: [UInt8] {
        var bytes: [UInt8] = []
        var index = startIndex
        while index < endIndex, let next = self.index(index, offsetBy: 2, limitedBy: endIndex) {
            bytes.append(UInt8(self[index..<next], radix: 16) ?? 0)
            index = next
        }
        return bytes
    }
}
