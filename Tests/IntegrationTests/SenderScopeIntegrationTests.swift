import Foundation
import MockUpstream
import PushCore
import PushTesting
import XCTest

/// An attacker holding tenant A's sender key, through the real nginx and `pushgate serve`:
/// it may push to tenant A's app and nothing else. A request naming tenant B's app gets 403
/// in each dialect's own shape and pushes nothing; what belongs to tenant B alone (a Beams
/// instance, a cospace user's devices) does not exist to it, answered as an unknown one is;
/// a fan-out reaching both tenants' devices reaches A's only and does not say how many it
/// left out. An operator key made with `--operator` alone sends nothing in any dialect and
/// signs no Beams token; keys made so before migration 0020 are made to send nothing too.
/// The operator pages refuse a sender key, and once an operator key exists, a loopback
/// caller without it. `/readyz` keeps the database's error text to the log. Runs on SQLite
/// and on PostgreSQL.
final class SenderScopeIntegrationTests: MockUpstreamsTestCase, RunsOnPostgreSQL {
    /// Tenant A: an APNs app, also its Beams instance and the bridge's APNs app.
    static let appA = "39JSDKGJ38.de.tenant-a"
    /// Tenant B: an FCM app, also its Beams instance, cospace's and the bridge's FCM app.
    static let appB = "de.tenant-b.android"
    static let apnsToken = "a6461732069737d42065496e" + String(repeating: "0", count: 35) + "f39ad"
    static let fcmToken = "dXk:APA91bTenantB-token_1"

    var keyA = ""
    var userID = ""

    override func setUpWithError() throws {
        try super.setUpWithError()
        try startPushgate(environment: [
            "PUSHGATE_COSPACE_FCM_APP": Self.appB, "PUSHGATE_BRIDGE_APNS_APP": Self.appA,
            "PUSHGATE_BRIDGE_FCM_APP": Self.appB,
        ])
        try pushgate.addMockAPNsApp(id: Self.appA, ["--topic", "de.tenant-a", "--app-key", "instance-a"])
        try pushgate.addMockFCMApp(id: Self.appB, fcm: fcm, ["--app-key", "instance-b"])
        keyA = try addKey("tenant-a", ["--app", Self.appA])
    }

    // MARK: Helpers

    /// `pushgate keys add NAME ARGS…`; the key it prints.
    func addKey(_ name: String, _ arguments: [String] = []) throws -> String {
        let added = try pushgate.cli(["keys", "add", name] + arguments)
        XCTAssertEqual(added.status, 0, added.stderr)
        return added.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func bearer(_ key: String) -> [String: String] { ["Authorization": "Bearer \(key)"] }

    func post(_ path: String, _ body: String, key: String) throws -> HTTPClient.Response {
        try pushgate.client.post(path, contentType: "application/json", body: body, headers: bearer(key))
    }

    func json(_ response: HTTPClient.Response) -> [String: JSONValue] {
        (try? JSONValue.parse(response.body))?.objectValue ?? [:]
    }

    /// `outbox status` once no push is pending (the worker finished what was queued), or
    /// as it last was after a bounded wait.
    func pendingPushes() throws -> String {
        var status = ""
        for _ in 0..<200 {
            status = try pushgate.cli(["outbox", "status"]).stdout
            if status.contains("pending: 0\n") { break }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return status
    }

    /// Alice with an APNs device of tenant A and an FCM registration of tenant B.
    func registerAlice() throws {
        let added = try pushgate.run(
            PushgateInstance.executable.path, ["users", "add", "alice", "--password-stdin"], stdin: "alice-secret\n")
        XCTAssertEqual(added.status, 0, added.stderr)
        userID = added.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let alice = ["Authorization": "Basic " + Data("alice:alice-secret".utf8).base64EncodedString()]
        for body in [
            #"{"system":"apns","action":"add","device_token":"\#(Self.apnsToken)","application_id":"\#(Self.appA)","sandbox":false}"#,
            #"{"system":"gcm","action":"add","registration_id":"\#(Self.fcmToken)"}"#,
        ] {
            let response = try pushgate.client.post(
                "/api/push", contentType: "application/json", body: body, headers: alice)
            XCTAssertEqual(response.status, 200, response.text)
        }
        XCTAssertEqual(try pushgate.storedDevices().count, 2)
    }

    func event(owner: String) -> String {
        #"{"owner":"\#(owner)","message":"recording_new","recording":"r-1","phone":"+15550100"}"#
    }

    // MARK: 403 in each dialect's shape

    func testPnm2ToAnotherTenantsAppIs403AndSendsNothing() throws {
        let toB =
            #"{"verb": "NotifyTextMessage", "AppId": "\#(Self.appB)", "Selector": "s-b", "DeviceToken": "\#(Self.fcmToken)", "Message": "hi"}"#
        let refused = try post("/pnm2/send", toB, key: keyA)
        XCTAssertEqual(refused.status, 403, refused.text)
        XCTAssertEqual(json(refused)["code"], .number(403))
        XCTAssertTrue(json(refused)["response"]?.stringValue?.contains(Self.appB) ?? false, refused.text)

        // One entry of B's among A's refuses the whole multisend: nothing goes out.
        let toA =
            #"{"verb": "NotifyTextMessage", "AppId": "\#(Self.appA)", "Selector": "s-a", "DeviceToken": "\#(Self.apnsToken)", "Message": "hi"}"#
        let mixed = try post("/pnm2/multisend", "[\(toA), \(toB)]", key: keyA)
        XCTAssertEqual(mixed.status, 403, mixed.text)
        XCTAssertEqual(json(mixed)["code"], .number(403))
        // A name that is no app at all is outside the scope too (never "not registered").
        let unknown = try post(
            "/pnm2/send", toB.replacingOccurrences(of: Self.appB, with: "com.example.unknown"), key: keyA)
        XCTAssertEqual(unknown.status, 403, unknown.text)
        XCTAssertEqual(fcm.sendRequests.count, 0)
        XCTAssertEqual(apns.requests.count, 0)

        let own = try post("/pnm2/send", toA, key: keyA)
        XCTAssertEqual(own.status, 200, own.text)
        XCTAssertEqual(json(own)["code"], .number(200))
        XCTAssertEqual(apns.requests.count, 1)
        XCTAssertEqual(fcm.sendRequests.count, 0)

        // A key limited to other dialects may not use pnm2 at all.
        let beamsOnly = try addKey("beams-only", ["--dialect", "beams"])
        let wrongDialect = try post("/pnm2/send", toA, key: beamsOnly)
        XCTAssertEqual(wrongDialect.status, 403, wrongDialect.text)
        XCTAssertEqual(json(wrongDialect)["code"], .number(403))
        XCTAssertEqual(apns.requests.count, 1)
    }

    func testACospaceEventOnlyReachesTheKeysAppsAndTellsNothingOfOthers() throws {
        try registerAlice()
        let narrowed = try post("/api/push/events", event(owner: userID), key: keyA)
        XCTAssertEqual(narrowed.status, 200, narrowed.text)
        XCTAssertEqual(json(narrowed), ["queued": .number(1)], "no count of tenant B's devices")
        XCTAssertTrue(apns.waitForRequests(count: 1), "tenant A's device gets its push")
        XCTAssertEqual(apns.requests.last?.path, "/3/device/\(Self.apnsToken)")
        // The operator still learns it from the log.
        try pushgate.waitForServeLog(containing: "1 queued, 1 left out of tenant-a's scope")

        // A key of another app only: every device of alice is outside it, and to that key
        // alice does not exist: the answer of an owner nobody has, byte for byte.
        let other = try addKey("tenant-c", ["--app", "com.example.tenant-c"])
        let refused = try post("/api/push/events", event(owner: userID), key: other)
        let unknown = try post("/api/push/events", event(owner: "0c7a4b1e-0000-4000-8000-000000000000"), key: other)
        XCTAssertEqual(unknown.status, 404, unknown.text)
        XCTAssertEqual(json(unknown), ["status": .string("unknown-owner")])
        XCTAssertEqual(refused.status, unknown.status, refused.text)
        XCTAssertEqual(refused.body, unknown.body)
        try pushgate.waitForServeLog(containing: "0 queued, 2 left out of tenant-c's scope")
        let noCospace = try addKey("pnm2-only", ["--dialect", "pnm2"])
        let wrongDialect = try post("/api/push/events", event(owner: userID), key: noCospace)
        XCTAssertEqual(wrongDialect.status, 403, wrongDialect.text)
        XCTAssertEqual(json(wrongDialect), ["status": .string("forbidden")])

        let pending = try pendingPushes()
        XCTAssertTrue(pending.contains("pending: 0\n"), pending)
        XCTAssertEqual(fcm.sendRequests.count, 0, "tenant B's device was never queued")
        XCTAssertEqual(apns.requests.count, 1)
    }

    /// Tenant B's instance does not exist to A's key: the answer of an unknown instance, byte
    /// for byte, for a publish and for a user's removal. An instance that is partly A's is
    /// refused without naming its other app.
    func testABeamsInstanceOfAnotherTenantIsAnswered404AsAnUnknownOne() throws {
        let body = #"{"interests":["news"],"apns":{"aps":{"alert":"hi"}},"fcm":{"data":{"k":"v"}}}"#
        for path in ["/publish_api/v1/instances/%@/publishes", "/publish_api/v1/instances/%@/publishes/users"] {
            let payload = path.hasSuffix("users") ? body.replacingOccurrences(of: #""interests":["news"]"#, with: #""users":["alice"]"#) : body
            let refused = try post(path.replacingOccurrences(of: "%@", with: "instance-b"), payload, key: keyA)
            let unknown = try post(path.replacingOccurrences(of: "%@", with: "instance-nobody"), payload, key: keyA)
            XCTAssertEqual(unknown.status, 404, unknown.text)
            XCTAssertEqual(refused.status, 404, "\(path): \(refused.text)")
            XCTAssertEqual(refused.body, unknown.body, path)
        }
        let removal = try pushgate.client.request(
            "DELETE", "/customer_api/v1/instances/instance-b/users/alice", headers: bearer(keyA))
        let unknownRemoval = try pushgate.client.request(
            "DELETE", "/customer_api/v1/instances/instance-nobody/users/alice", headers: bearer(keyA))
        XCTAssertEqual(removal.status, 404, removal.text)
        XCTAssertEqual(removal.body, unknownRemoval.body)

        let own = try post("/publish_api/v1/instances/instance-a/publishes", body, key: keyA)
        XCTAssertEqual(own.status, 200, own.text)
        XCTAssertNotNil(json(own)["publishId"])

        // Tenant A's Android app joins instance-a: the key reaches half of it, which it knows.
        let androidA = "de.tenant-a.android"
        try pushgate.addMockFCMApp(id: androidA, fcm: fcm, ["--app-key", "instance-a"])
        let half = try post("/publish_api/v1/instances/instance-a/publishes", body, key: keyA)
        XCTAssertEqual(half.status, 403, half.text)
        XCTAssertEqual(json(half)["error"], .string("Forbidden"), half.text)
        XCTAssertFalse(half.text.contains(androidA), half.text)
    }

    func testABridgePublishReachesOnlyTheKeysAppsSubscribersOr403() throws {
        let apnsBase64 = DeviceToken.fromHex(Self.apnsToken)!.base64
        for destination in ["apns://\(apnsBase64)", "gcm://\(Self.fcmToken)"] {
            let subscribed = try pushgate.client.post(
                "/push/notifications", contentType: "application/json",
                body: #"{"pnsub": {"destination": "\#(destination)", "topic": "news"}}"#)
            XCTAssertEqual(subscribed.status, 200, subscribed.text)
        }
        let body = #"{"apns": {"aps": {"alert": "hi"}}, "fcm": {"data": {"k": "v"}}}"#
        let narrowed = try post("/push/topics/news", body, key: keyA)
        XCTAssertEqual(narrowed.status, 202, narrowed.text)
        XCTAssertEqual(
            json(narrowed)["response"]?.objectValue?["content"],
            .object(["topic": .string("news"), "queued": .number(1)]), "no count of tenant B's subscribers")
        XCTAssertTrue(apns.waitForRequests(count: 1))

        let other = try addKey("tenant-c", ["--app", "com.example.tenant-c"])
        let refused = try post("/push/topics/news", body, key: other)
        XCTAssertEqual(refused.status, 403, refused.text)
        XCTAssertTrue(
            json(refused)["response"]?.objectValue?["error"]?.stringValue?.contains("bridge's apps") ?? false,
            refused.text)
        let pending = try pendingPushes()
        XCTAssertTrue(pending.contains("pending: 0\n"), pending)
        XCTAssertEqual(fcm.sendRequests.count, 0)
        XCTAssertEqual(apns.requests.count, 1)
    }

    // MARK: Operator keys

    /// Every send-side request a key can make, in each dialect, with the status it answered.
    func sendEverywhere(key: String) throws -> [String: HTTPClient.Response] {
        let toA =
            #"{"verb": "NotifyTextMessage", "AppId": "\#(Self.appA)", "Selector": "s-a", "DeviceToken": "\#(Self.apnsToken)", "Message": "hi"}"#
        let beams = #"{"interests":["news"],"apns":{"aps":{"alert":"hi"}}}"#
        return [
            "pnm2 send": try post("/pnm2/send", toA, key: key),
            "pnm2 multisend": try post("/pnm2/multisend", "[\(toA)]", key: key),
            "cospace event": try post("/api/push/events", event(owner: userID), key: key),
            "beams publish": try post("/publish_api/v1/instances/instance-a/publishes", beams, key: key),
            "beams user publish": try post(
                "/publish_api/v1/instances/instance-a/publishes/users",
                #"{"users":["alice"],"apns":{"aps":{"alert":"hi"}}}"#, key: key),
            "beams user removal": try pushgate.client.request(
                "DELETE", "/customer_api/v1/instances/instance-a/users/alice", headers: bearer(key)),
            "bridge publish": try post("/push/topics/news", #"{"apns": {"aps": {"alert": "hi"}}}"#, key: key),
        ]
    }

    /// A Beams device of instance-a (tenant A's APNs app) and a token for it signed with `key`:
    /// the status of binding the device to a user with it.
    func bindBeamsUser(signedWith key: String, token n: Int) throws -> HTTPClient.Response {
        let device = "/device_api/v1/instances/instance-a/devices/apns"
        let registered = try pushgate.client.post(
            device, contentType: "application/json", body: #"{"token":"\#(String(format: "%064x", n))","bundleIdentifier":"de.tenant-a"}"#)
        XCTAssertEqual(registered.status, 200, registered.text)
        let id = try XCTUnwrap(json(registered)["id"]?.stringValue)
        let now = Int(Date().timeIntervalSince1970)
        let token = try BeamsTokenSigner.token(
            ["exp": now + 600, "iss": "https://instance-a.pushnotifications.pusher.com", "sub": "mallory"], key: key)
        return try pushgate.client.request("PUT", "\(device)/\(id)/user", headers: bearer(token))
    }

    /// `keys add prometheus --operator`: the scrape key reads the pages and nothing else. Every
    /// dialect refuses it in its own shape, it signs no Beams token, and `keys list` says it
    /// sends nothing; with `--app` and `--dialect` too, a key does both, as its options say.
    func testAnOperatorKeySendsNothingAndSignsNoBeamsToken() throws {
        try registerAlice()
        let scrape = try addKey("prometheus", ["--operator"])
        for (what, response) in try sendEverywhere(key: scrape) {
            XCTAssertEqual(response.status, 403, "\(what): \(response.text)")
            XCTAssertFalse(response.text.isEmpty, what)
        }
        XCTAssertEqual(json(try post("/pnm2/send", "{}", key: scrape))["code"], .number(403), "pnm2's shape")
        XCTAssertEqual(
            json(try post("/api/push/events", event(owner: userID), key: scrape)), ["status": .string("forbidden")])
        let pending = try pendingPushes()
        XCTAssertTrue(pending.contains("pending: 0\n"), pending)
        XCTAssertEqual(apns.requests.count, 0, "nothing was sent")
        XCTAssertEqual(fcm.sendRequests.count, 0)

        let bound = try bindBeamsUser(signedWith: scrape, token: 1)
        XCTAssertEqual(bound.status, 401, bound.text)
        XCTAssertEqual(try bindBeamsUser(signedWith: keyA, token: 2).status, 200, "a key of the instance signs")
        XCTAssertEqual(try pushgate.client.get("/metrics", headers: bearer(scrape)).status, 200)

        let both = try addKey("ops-and-pbx", ["--operator", "--app", Self.appA, "--dialect", "pnm2"])
        let sent = try sendEverywhere(key: both)
        XCTAssertEqual(sent["pnm2 send"]?.status, 200, sent["pnm2 send"]?.text ?? "")
        XCTAssertEqual(sent["beams publish"]?.status, 403, "pnm2 only, as its options say")
        XCTAssertEqual(try pushgate.client.get("/status", headers: bearer(both)).status, 200)

        let list = try pushgate.cli(["keys", "list"]).stdout
        let line = { (name: String) in list.split(separator: "\n").first { $0.hasPrefix(name + "\t") }.map(String.init) ?? "" }
        XCTAssertTrue(line("prometheus").contains("\tsends nothing; reads /metrics and /status\t"), list)
        XCTAssertTrue(line("ops-and-pbx").contains("\tsends: apps \(Self.appA); dialects pnm2; reads /metrics and /status\t"), list)
        XCTAssertTrue(line("tenant-a").contains("\tsends: apps \(Self.appA); every dialect\t"), list)
    }

    /// An operator key stored before migration 0020, as `keys add --operator` stored it then
    /// (no app or dialect list: every app and dialect), sent; migrated, it sends nothing.
    func testMigration0020TakesTheSendScopeOfOperatorKeysMadeBefore() throws {
        let scrape = try addKey("prometheus", ["--operator"])
        let both = try addKey("ops-and-pbx", ["--operator", "--dialect", "pnm2"])
        try pushgate.sql(
            "UPDATE api_keys SET app_scope = NULL, dialect_scope = NULL WHERE name = 'prometheus'; "
                + "DELETE FROM schema_migrations WHERE version = 20")
        let toA =
            #"{"verb": "NotifyTextMessage", "AppId": "\#(Self.appA)", "Selector": "s-a", "DeviceToken": "\#(Self.apnsToken)", "Message": "hi"}"#
        let before = try post("/pnm2/send", toA, key: scrape)
        XCTAssertEqual(before.status, 200, "the old row reaches every app: \(before.text)")
        XCTAssertTrue(try pushgate.cli(["keys", "list"]).stdout.contains("prometheus\t"))

        let migrated = try pushgate.cli(["migrate"])
        XCTAssertEqual(migrated.status, 0, migrated.stderr)
        let after = try post("/pnm2/send", toA, key: scrape)
        XCTAssertEqual(after.status, 403, after.text)
        XCTAssertEqual(try bindBeamsUser(signedWith: scrape, token: 3).status, 401)
        XCTAssertEqual(try post("/pnm2/send", toA, key: both).status, 200, "a key with a send scope keeps it")
        XCTAssertEqual(try pushgate.client.get("/metrics", headers: bearer(scrape)).status, 200)
        XCTAssertTrue(try pushgate.cli(["keys", "list"]).stdout.contains("prometheus\t"))
        XCTAssertTrue(
            try pushgate.cli(["keys", "list"]).stdout.contains("\tsends nothing; reads /metrics and /status\t"))
        XCTAssertEqual(apns.requests.count, 2)
    }

    // MARK: Operator pages and readiness

    func testTheOperatorPagesNeedAnOperatorKeyOnceOneExists() throws {
        // Before: loopback, as nginx passes it; a sender key changes nothing for loopback.
        XCTAssertEqual(try pushgate.client.get("/metrics").status, 200)
        XCTAssertEqual(try pushgate.client.get("/status").status, 200)

        let operatorKey = try addKey("prometheus", ["--operator", "--dialect", "pnm2", "--app", Self.appA])
        for page in ["/metrics", "/status"] {
            let anonymous = try pushgate.client.get(page)
            XCTAssertEqual(anonymous.status, 403, "\(page): loopback is no exemption once an operator key exists")
            XCTAssertTrue(anonymous.text.contains("operator key"), anonymous.text)
            XCTAssertEqual(
                try pushgate.client.get(page, headers: bearer(keyA)).status, 403, "a sender key is no operator key")
            XCTAssertEqual(try pushgate.client.get(page, headers: bearer("pgk_made_up")).status, 403)
            let allowed = try pushgate.client.get(page, headers: bearer(operatorKey))
            XCTAssertEqual(allowed.status, 200, "\(page): \(allowed.text)")
        }
        XCTAssertTrue(
            try pushgate.client.get("/metrics", headers: bearer(operatorKey)).text.contains("pushgate_build_info"))

        // Revoked, the pages fall back to loopback only.
        XCTAssertEqual(try pushgate.cli(["keys", "revoke", "prometheus"]).status, 0)
        XCTAssertEqual(try pushgate.client.get("/metrics").status, 200)
        XCTAssertEqual(try pushgate.client.get("/metrics", headers: bearer(operatorKey)).status, 200, "from loopback")
    }

    func testReadyzSaysNotReadyWithoutTheDatabasesErrorText() throws {
        XCTAssertEqual(try pushgate.client.get("/readyz").status, 200)
        try pushgate.sql("ALTER TABLE schema_migrations RENAME TO schema_migrations_gone")
        let notReady = try pushgate.client.get("/readyz")
        XCTAssertEqual(notReady.status, 503, notReady.text)
        XCTAssertEqual(notReady.text, "not ready\n")
        XCTAssertFalse(notReady.text.contains("schema_migrations"))
        // The operator still learns why, from the log.
        try pushgate.waitForServeLog(containing: "not ready: the database")
    }
}
