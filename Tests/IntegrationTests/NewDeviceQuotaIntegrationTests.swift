import FastCGI
import Foundation
import PushTesting
import XCTest

/// The quota of new devices per client address (`PUSHGATE_NEW_DEVICES_PER_HOUR`) through the
/// real nginx and `pushgate serve`, counted across the Token Reporter, the Beams client and
/// device APIs and the bridge, from loopback (which nginx's rate limit exempts): past it each
/// dialect answers 429 with `Retry-After` in its own shape and stores nothing, while a caller
/// re-reporting what is stored goes on as before and is not counted.
final class NewDeviceQuotaIntegrationTests: BeamsTestCase, RunsOnPostgreSQL {
    static let apnsApp = "com.example.quota"
    static let fcmApp = "com.example.quota.android"
    static let appKey = "quota-app-key-1"
    static let instance = "quota-app-key-1"

    static func selector(_ n: Int) -> String { String(format: "%040X:%08X", 0xC0FFEE + n, n) }
    static func fcmToken(_ n: Int) -> String { "dXk:APA91bQuota-token_\(n)" }
    static func apnsToken(_ n: Int) -> String { String(format: "%064x", 0xABCDEF00 + n) }

    func start(
        perHour: Int, _ settings: [String: String] = [:], adjustNginx: @escaping (URL) throws -> Void = { _ in }
    ) throws {
        pushgate = try PushgateInstance(
            environment: PushgateInstance.upstreams(apns: apns, fcm: fcm).merging(
                [
                    "PUSHGATE_BRIDGE_APNS_APP": Self.apnsApp, "PUSHGATE_BRIDGE_FCM_APP": Self.fcmApp,
                    "PUSHGATE_NEW_DEVICES_PER_HOUR": String(perHour),
                ].merging(settings) { _, own in own }
            ) { _, own in own })
        pushgate.adjustNginx = adjustNginx
        try pushgate.addMockAPNsApp(id: Self.apnsApp, ["--topic", Self.apnsApp, "--app-key", Self.appKey])
        try pushgate.addMockFCMApp(id: Self.fcmApp, fcm: fcm, ["--app-key", Self.appKey])
        try pushgate.start()
    }

    // MARK: The four ways to create

    func report(_ n: Int, token: Int? = nil, from client: HTTPClient? = nil) throws -> HTTPClient.Response {
        try (client ?? pushgate.client).get(
            "/token/?selector=\(Self.selector(n))&token_msgs=\(Self.fcmToken(token ?? n))&appid_msgs=\(Self.fcmApp)")
    }

    func beamsClient(_ n: Int, from client: HTTPClient? = nil) throws -> HTTPClient.Response {
        try (client ?? pushgate.client).request(
            "POST", "/client_api/v1/clients", headers: ["Content-Type": "application/json"],
            body: Array(#"{"app_key": "\#(Self.appKey)", "platform_type": "apns", "token": "\#(Self.apnsToken(n))"}"#.utf8))
    }

    func beamsDevice(_ n: Int) throws -> HTTPClient.Response {
        try send("POST", "/device_api/v1/instances/\(Self.instance)/devices/fcm", #"{"token": "\#(Self.fcmToken(1000 + n))"}"#)
    }

    func pnsub(_ n: Int, topic: String = "news") throws -> HTTPClient.Response {
        try pushgate.client.post(
            "/push/notifications", contentType: "application/json",
            body: #"{"pnsub": {"destination": "gcm://\#(Self.fcmToken(2000 + n))", "topic": "\#(topic)"}}"#)
    }

    /// What the store holds, as operators see it: every device with its owners, without the
    /// times a repeat may move (a re-registration records when it was seen).
    func storeContents() throws -> [String] {
        try pushgate.storedDevices().map { device in
            let kept = device.filter { !["created_at", "updated_at"].contains($0.key) }
            return String(decoding: try JSONSerialization.data(withJSONObject: kept, options: [.sortedKeys]), as: UTF8.self)
        }.sorted()
    }

    func retryAfter(_ response: HTTPClient.Response, file: StaticString = #filePath, line: UInt = #line) -> Int? {
        let seconds = response.header("Retry-After").flatMap { Int($0) }
        XCTAssertNotNil(seconds, "Retry-After in seconds: \(response.headers)", file: file, line: line)
        if let seconds { XCTAssertTrue((1...3600).contains(seconds), "\(seconds)", file: file, line: line) }
        return seconds
    }

    func bridgeError(_ response: HTTPClient.Response) -> String? {
        (try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
            .flatMap { $0["response"] as? [String: Any] }?["error"] as? String
    }

    // MARK: Tests

    func testPastItsQuotaAnAddressCreatesNothingInAnyDialectWhileReReportsGoOn() throws {
        try start(perHour: 4)
        // One new device or client in each dialect: four, the quota.
        XCTAssertEqual(try report(1).status, 200)
        let client = try beamsClient(1)
        XCTAssertEqual(client.status, 201, client.text)
        let device = try beamsDevice(1)
        XCTAssertEqual(device.status, 200, device.text)
        let deviceID = try XCTUnwrap(json(device)["id"] as? String)
        XCTAssertEqual(try pnsub(1).status, 200)
        // Repeats create nothing and count for nothing: the same report, the same
        // registration, the same subscription, again and again.
        for _ in 0..<5 {
            XCTAssertEqual(try report(1).status, 200)
            let again = try beamsDevice(1)
            XCTAssertEqual(again.status, 200, again.text)
            XCTAssertEqual(try json(again)["id"] as? String, deviceID, "a token registered before gets its client back")
            XCTAssertEqual(try pnsub(1).status, 200)
        }

        // The quota is spent: each dialect refuses what would be new, in its own shape.
        let before = try storeContents()
        let reporter = try report(2)
        XCTAssertEqual(reporter.status, 429, reporter.text)
        XCTAssertTrue(reporter.text.contains("too many new devices"), reporter.text)
        _ = retryAfter(reporter)

        let beams = try beamsClient(2)
        try assertBeamsError(beams, 429, "Too Many Requests", contains: "Too many new devices")
        _ = retryAfter(beams)

        let beamsDevice = try beamsDevice(2)
        try assertBeamsError(beamsDevice, 429, "Too Many Requests", contains: "Too many new devices")
        _ = retryAfter(beamsDevice)

        let bridge = try pnsub(2)
        XCTAssertEqual(bridge.status, 429, bridge.text)
        XCTAssertEqual(bridgeError(bridge)?.contains("too many new subscriptions"), true, bridge.text)
        _ = retryAfter(bridge)

        let moved = try report(1, token: 3)
        XCTAssertEqual(moved.status, 429, "a new token for an account is a new device: \(moved.text)")
        XCTAssertEqual(try storeContents(), before, "nothing was stored")

        // What is stored goes on: the same report, re-registration, the same subscription.
        XCTAssertEqual(try report(1).status, 200)
        let reregistered = try self.beamsDevice(1)
        XCTAssertEqual(reregistered.status, 200, reregistered.text)
        XCTAssertEqual(try json(reregistered)["id"] as? String, deviceID)
        XCTAssertEqual(try pnsub(1).status, 200)
        XCTAssertEqual(try storeContents(), before)
    }

    /// `PUSHGATE_MAX_DEVICES_PER_APP`: an app at the ceiling gets no new device in any
    /// dialect (507 in its shape, nothing stored), its stored devices go on, another app is
    /// not held back, and /metrics shows the refusals and the app's devices.
    func testPastTheAppCeilingNewDevicesAreRefusedWith507InEachDialect() throws {
        try start(perHour: 1000, ["PUSHGATE_MAX_DEVICES_PER_APP": "2"])
        XCTAssertEqual(try report(1).status, 200)
        XCTAssertEqual(try report(2).status, 200)
        let before = try storeContents()

        let reporter = try report(3)
        XCTAssertEqual(reporter.status, 507, reporter.text)
        XCTAssertTrue(reporter.text.contains("\(Self.fcmApp) has 2 devices"), reporter.text)
        try assertBeamsError(try beamsDevice(3), 507, "Insufficient Storage", contains: "2 devices")
        let bridge = try pnsub(3)
        XCTAssertEqual(bridge.status, 507, bridge.text)
        XCTAssertEqual(bridgeError(bridge)?.contains("2 devices"), true, bridge.text)
        XCTAssertEqual(try storeContents(), before, "nothing was stored")
        XCTAssertEqual(try report(1).status, 200, "a stored device reports as before")

        // The APNs app of the same instance has room of its own.
        XCTAssertEqual(try beamsClient(1).status, 201)
        XCTAssertEqual(try beamsClient(2).status, 201)
        try assertBeamsError(try beamsClient(3), 507, "Insufficient Storage")

        let metrics = try PrometheusText(try pushgate.client.get("/metrics").text)
        XCTAssertEqual(metrics.value("pushgate_new_devices_refused", ["reason": "app_ceiling"]), 4)
        XCTAssertEqual(metrics.value("pushgate_new_devices_refused", ["reason": "address_quota"]), 0)
        XCTAssertEqual(metrics.value("pushgate_app_devices", ["app": Self.fcmApp]), 2)
        XCTAssertEqual(metrics.value("pushgate_app_devices", ["app": Self.apnsApp]), 2)
    }

    /// After a restart `serve` knows no report, but what the store holds is still no new
    /// device: re-reports are let through uncounted, and the quota is all there for new ones.
    func testReReportsAfterARestartAreNotCounted() throws {
        try start(perHour: 3)
        for n in 1...3 { XCTAssertEqual(try report(n).status, 200) }
        XCTAssertEqual(try report(4).status, 429)
        pushgate.killServe()
        try pushgate.restartServe()
        for _ in 0..<3 {
            for n in 1...3 { XCTAssertEqual(try report(n).status, 200, "a stored account's report") }
        }
        for n in 4...6 { XCTAssertEqual(try report(n).status, 200, "new account \(n)") }
        let refused = try report(7)
        XCTAssertEqual(refused.status, 429, refused.text)
        _ = retryAfter(refused)
    }

    /// A report of device `n` written straight to serve's socket as nginx would pass it, from
    /// `address`: an attacker's FastCGI, with whatever REMOTE_ADDR nginx would have set.
    func reportToSocket(_ n: Int, from address: String) throws -> FastCGIClientRequest.Reply {
        try FastCGIClientRequest(params: [
            ("REQUEST_METHOD", "GET"),
            ("REQUEST_URI", "/token/?selector=\(Self.selector(n))&token_msgs=\(Self.fcmToken(n))&appid_msgs=\(Self.fcmApp)"),
            ("REMOTE_ADDR", address),
        ]).send(toSocket: pushgate.socket)
    }

    /// A tunnel broker's free /48 is 65,536 /64s: one new device from each of 255 of them (one
    /// in each /56) creates no more than the /48's ceiling; past it the Token Reporter answers
    /// 429 with Retry-After and stores nothing, while another /48 is still admitted.
    func testTheSlash64sOfOneSlash48CreateNoMoreThanItsCeiling() throws {
        try start(
            perHour: 2, ["PUSHGATE_NEW_DEVICES_PER_HOUR_PER_56": "4", "PUSHGATE_NEW_DEVICES_PER_HOUR_PER_48": "6"])
        var statuses: [Int: Int] = [:]
        var refused: FastCGIClientRequest.Reply?
        for n in 0..<255 {
            let reply = try reportToSocket(n, from: String(format: "2001:db8:4800:%x::1", n << 8))
            statuses[reply.status, default: 0] += 1
            if reply.status == 429 { refused = refused ?? reply }
        }
        XCTAssertEqual(statuses, [200: 6, 429: 249], "the /48's ceiling, whichever /64 asks")
        XCTAssertEqual(try pushgate.storedDevices().count, 6, "a refused report stores nothing")
        let reply = try XCTUnwrap(refused)
        XCTAssertTrue(reply.body.contains("too many new devices"), reply.body)
        let seconds = try XCTUnwrap(reply.headers["retry-after"].flatMap { Int($0) }, "\(reply.headers)")
        XCTAssertTrue((1...3600).contains(seconds), "\(seconds)")

        let other = try reportToSocket(1_000, from: "2001:db8:4801:1::1")
        XCTAssertEqual(other.status, 200, "another /48 has its own: \(other.body)")
        XCTAssertEqual(try pushgate.storedDevices().count, 7)

        // What the quota remembers: the seven /64s and /56s charged (a refused caller is not
        // kept), two /48s; and what each table may hold.
        let metrics = try PrometheusText(try pushgate.client.get("/metrics").text)
        XCTAssertEqual(metrics.value("pushgate_new_device_quota_keys", ["table": "address"]), 7)
        XCTAssertEqual(metrics.value("pushgate_new_device_quota_keys", ["table": "slash56"]), 7)
        XCTAssertEqual(metrics.value("pushgate_new_device_quota_keys", ["table": "slash48"]), 2)
        XCTAssertEqual(metrics.value("pushgate_new_device_quota_capacity"), 100_000, "the capacity docs/operations.md gives")
    }

    /// The /64s of one /56 (a subscriber's usual delegation) share the /56's ceiling; another
    /// /56 of the same /48 is not held back.
    func testTheSlash64sOfOneSlash56CreateNoMoreThanItsCeiling() throws {
        try start(
            perHour: 2, ["PUSHGATE_NEW_DEVICES_PER_HOUR_PER_56": "4", "PUSHGATE_NEW_DEVICES_PER_HOUR_PER_48": "100"])
        var statuses: [Int] = []
        for n in 0..<8 { statuses.append(try reportToSocket(n, from: "2001:db8:5600:1\(n)::7").status) }
        XCTAssertEqual(statuses, [200, 200, 200, 200, 429, 429, 429, 429])
        XCTAssertEqual(try pushgate.storedDevices().count, 4)
        XCTAssertEqual(try reportToSocket(100, from: "2001:db8:5600:200::7").status, 200, "another /56")
    }

    /// A dual-stack listener (`listen [::]:PORT ipv6only=off`) passes every IPv4 caller as
    /// `::ffff:a.b.c.d`: each still has a quota and a login count of its own, and nginx's rate
    /// limit keys each apart too, instead of one /64 of zeros that every IPv4 caller shares.
    func testEveryIPv4CallerOfADualStackListenerIsCountedOnItsOwn() throws {
        try start(perHour: 1, ["PUSHGATE_LOGIN_FAILURES_PER_MINUTE": "1"]) { prefix in try Self.listenDualStack(prefix) }
        let first = pushgate.client(from: "127.0.0.2")
        let second = pushgate.client(from: "127.0.0.3")
        XCTAssertEqual(try beamsClient(1, from: first).status, 201)
        XCTAssertEqual(try beamsClient(2, from: first).status, 429)
        XCTAssertEqual(try beamsClient(3, from: second).status, 201, "127.0.0.3 has a quota of its own")
        XCTAssertEqual(try report(4, from: second).status, 429, "and spent it")

        // The login throttle: one failure per address a minute (distinct names, so that only
        // the address's count decides).
        func login(_ user: String, from client: HTTPClient) throws -> Int {
            let basic = "Basic " + Data("\(user):wrong".utf8).base64EncodedString()
            return try client.get("/api/push", headers: ["Authorization": basic]).status
        }
        XCTAssertEqual(try login("u1", from: first), 401)
        XCTAssertEqual(try login("u2", from: first), 429)
        XCTAssertEqual(try login("u3", from: second), 401, "127.0.0.3's failures are its own")
        let log = try String(contentsOf: pushgate.directory.appendingPathComponent("nginx/logs/access.log"), encoding: .utf8)
        XCTAssertTrue(log.contains("::ffff:127.0.0.3 "), "the callers came as mapped addresses:\n\(log)")
    }

    /// nginx's per-address rate limit under a dual-stack listener, with loopback counted like
    /// any caller and a limit a test can reach: a caller past it does not hold back another.
    func testNginxRateLimitsEachMappedIPv4CallerApart() throws {
        try start(perHour: 1000) { prefix in
            try Self.listenDualStack(prefix)
            try Self.rewrite(prefix) { text in
                text.replacingOccurrences(of: "127.0.0.0/8 1;", with: "127.0.0.1/32 1;")
                    .replacingOccurrences(of: "rate=20r/s", with: "rate=1r/m")
                    .replacingOccurrences(of: "burst=200", with: "burst=1")
            }
        }
        let first = pushgate.client(from: "127.0.0.2")
        let second = pushgate.client(from: "127.0.0.3")
        var statuses: [Int] = []
        for _ in 0..<4 { statuses.append(try first.get("/client_api/v1/clients/none").status) }
        XCTAssertTrue(statuses.contains(429), "127.0.0.2 reached the limit: \(statuses)")
        XCTAssertNotEqual(try second.get("/client_api/v1/clients/none").status, 429, "127.0.0.3 has its own")
    }

    static func listenDualStack(_ prefix: URL) throws {
        try rewrite(prefix) { text in
            text.replacingOccurrences(
                of: #"listen 127\.0\.0\.1:(\d+);"#, with: "listen [::]:$1 ipv6only=off;", options: .regularExpression)
        }
    }

    /// Rewrites every configuration file nginx reads from the prefix.
    static func rewrite(_ prefix: URL, _ change: (String) -> String) throws {
        let files = try FileManager.default.contentsOfDirectory(at: prefix, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "conf" }
        for file in files {
            let text = try String(contentsOf: file, encoding: .utf8)
            let changed = change(text)
            if changed != text { try changed.write(to: file, atomically: true, encoding: .utf8) }
        }
    }
}
