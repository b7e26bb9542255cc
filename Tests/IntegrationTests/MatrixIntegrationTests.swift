import Foundation
import MockUpstream
import PushCore
import PushTesting
import XCTest

/// The Matrix Push Gateway API through the real nginx and `pushgate serve`, pushing to the
/// repository's mock APNs, FCM and Web Push service as Sygnal would: each format and platform
/// with its payload and headers, dead pushkeys named in `rejected` and pruned, upstream trouble
/// as 502, malformed bodies, and callers outside `PUSHGATE_MATRIX_HOMESERVERS` refused.
final class MatrixIntegrationTests: MockUpstreamsTestCase, RunsOnPostgreSQL {
    static let iosApp = "im.example.app.ios.prod"
    static let voipApp = "im.example.app.ios.voip"
    static let androidApp = "im.example.app.android"
    static let webApp = "im.example.app.web"
    static let apnsHex = "5fa8b3c1d2e3f40516273849aabbccddeeff00112233445566778899aabbccdd"
    static let fcmToken = "fcm-device-token:APA91bH-matrix-test"
    var webPush: MockWebPush!

    override func setUpWithError() throws {
        try super.setUpWithError()
        webPush = try MockWebPush.started()
    }

    override func tearDown() {
        // pushgate first: the mock push service waits for the connections it still holds.
        pushgate?.stop()
        webPush?.shutdown()
        webPush = nil
        super.tearDown()
    }

    /// pushgate against the three mocks, with the four apps registered.
    private func startWithApps(environment: [String: String] = [:], nginxEnvironment: [String: String]? = nil) throws {
        pushgate = try PushgateInstance(
            environment: PushgateInstance.upstreams(apns: apns, fcm: fcm, webPush: webPush)
                .merging(environment) { _, own in own },
            nginxEnvironment: nginxEnvironment)
        try pushgate.start()
        try pushgate.addMockAPNsApp(id: Self.iosApp, ["--topic", "im.example.app", "--matrix"])
        try pushgate.addMockAPNsApp(id: Self.voipApp, ["--topic", "im.example.app.voip", "--push-type", "voip", "--matrix"])
        try pushgate.addMockFCMApp(id: Self.androidApp, fcm: fcm, ["--matrix"])
        try pushgate.addWebApp(id: Self.webApp, subject: "mailto:matrix@example.org", ["--matrix"])
    }

    private func notify(_ body: String) throws -> HTTPClient.Response {
        try pushgate.client.post("/_matrix/push/v1/notify", contentType: "application/json", body: body)
    }

    private static func device(_ appID: String, _ pushkey: String, data: String = "{}") -> String {
        #"{"app_id": "\#(appID)", "pushkey": "\#(pushkey)", "pushkey_ts": 1700000000, "data": \#(data), "tweaks": {"sound": "default"}}"#
    }

    /// A message as Synapse sends it for a pusher of the full format.
    private static func message(prio: String = "high", devices: [String]) -> String {
        #"""
        {"notification": {"id": "$ev1", "event_id": "$ev1", "room_id": "!room:example.org", "type": "m.room.message",
          "sender": "@alice:example.org", "sender_display_name": "Alice", "room_name": "Lunch", "prio": "\#(prio)",
          "content": {"msgtype": "m.text", "body": "Pizza?"}, "counts": {"unread": 2, "missed_calls": 1},
          "devices": [\#(devices.joined(separator: ", "))]}}
        """#
    }

    private func rejected(_ response: HTTPClient.Response) throws -> [String] {
        XCTAssertEqual(response.status, 200, response.text)
        let object = try XCTUnwrap(try JSONValue.parse(response.body).objectValue, response.text)
        return try XCTUnwrap(object["rejected"]?.arrayValue, response.text).compactMap(\.stringValue)
    }

    /// Reports `token` (base64, as the Token Reporter takes it) for `app`, so it is stored.
    private func store(_ tokenBytes: [UInt8], app: String, selector: String) throws {
        let token = Base64.encode(tokenBytes).addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let response = try pushgate.client.get("/token/?selector=\(selector)&token_msgs=\(token)&appid_msgs=\(app)")
        XCTAssertEqual(response.status, 200, response.text)
    }

    // MARK: Each platform and format

    func testAPNsFullEventIDOnlyAndBadgeOnlyPushes() throws {
        try startWithApps()
        let pushkey = DeviceToken.fromHex(Self.apnsHex)!.base64
        let defaultPayload = #"{"default_payload": {"aps": {"mutable-content": 1, "alert": {"loc-key": "Notification", "loc-args": []}}}}"#
        let full = try notify(Self.message(devices: [Self.device(Self.iosApp, pushkey, data: defaultPayload)]))
        XCTAssertEqual(try rejected(full), [])
        XCTAssertEqual(full.header("Content-Type"), "application/json")
        let first = try XCTUnwrap(apns.requests.last)
        XCTAssertEqual(first.path, "/3/device/\(Self.apnsHex)")
        XCTAssertEqual(first.headers["apns-topic"], "im.example.app")
        XCTAssertEqual(first.headers["apns-push-type"], "alert")
        XCTAssertEqual(first.headers["apns-priority"], "10")
        XCTAssertNil(first.headers["apns-collapse-id"])
        XCTAssertNil(first.headers["apns-expiration"])
        XCTAssertEqual(
            first.bodyJSON,
            .object([
                "aps": .object([
                    "mutable-content": .number(1), "badge": .number(3),
                    "alert": .object([
                        "loc-key": .string("MSG_FROM_USER_IN_ROOM_WITH_CONTENT"),
                        "loc-args": .array([.string("Alice"), .string("Lunch"), .string("Pizza?")]),
                    ]),
                ]),
                "room_id": .string("!room:example.org"), "event_id": .string("$ev1"),
            ]))

        // event_id_only, as Synapse sends it for such a pusher (no type, no content), prio low;
        // the device's pushkey in hex this time.
        let eventOnly = try notify(
            #"{"notification": {"event_id": "$ev2", "room_id": "!room:example.org", "prio": "low", "counts": {"unread": 5}, "devices": [\#(Self.device(Self.iosApp, Self.apnsHex.uppercased(), data: defaultPayload))]}}"#)
        XCTAssertEqual(try rejected(eventOnly), [])
        let second = try XCTUnwrap(apns.requests.last)
        XCTAssertEqual(second.path, "/3/device/\(Self.apnsHex)")
        XCTAssertEqual(second.headers["apns-priority"], "5")
        XCTAssertEqual(
            second.bodyJSON,
            .object([
                "aps": .object([
                    "mutable-content": .number(1),
                    "alert": .object(["loc-key": .string("Notification"), "loc-args": .array([])]),
                ]),
                "room_id": .string("!room:example.org"), "event_id": .string("$ev2"), "unread_count": .number(5),
            ]))

        // The badge after a read receipt: no event, a null type.
        let badge = try notify(
            #"{"notification": {"id": "", "type": null, "sender": "", "counts": {"unread": 0}, "devices": [\#(Self.device(Self.iosApp, pushkey, data: defaultPayload))]}}"#)
        XCTAssertEqual(try rejected(badge), [])
        XCTAssertEqual(apns.requests.last?.bodyJSON, .object(["aps": .object(["badge": .number(0)])]))

        // A VoIP app sends VoIP pushes to its own topic.
        let voip = try notify(Self.message(devices: [Self.device(Self.voipApp, pushkey)]))
        XCTAssertEqual(try rejected(voip), [])
        XCTAssertEqual(apns.requests.last?.headers["apns-push-type"], "voip")
        XCTAssertEqual(apns.requests.last?.headers["apns-topic"], "im.example.app.voip")
        XCTAssertEqual(apns.requests.count, 4)
    }

    func testFCMAndWebPushMessages() throws {
        try startWithApps()
        let subscription = try webPush.createSubscription()
        let webData =
            #"{"endpoint": "\#(subscription.endpoint)", "auth": "\#(Base64.encodeURLSafe(subscription.auth))", "default_payload": {"app": "element"}}"#
        let response = try notify(
            Self.message(
                prio: "low",
                devices: [
                    Self.device(Self.androidApp, Self.fcmToken, data: #"{"default_payload": {"cs": 7}}"#),
                    Self.device(Self.webApp, Base64.encodeURLSafe(subscription.p256dh), data: webData),
                ]))
        XCTAssertEqual(try rejected(response), [])

        let request = try XCTUnwrap(fcm.sendRequests.last)
        let message = try XCTUnwrap(request.bodyJSON?.objectValue?["message"]?.objectValue)
        XCTAssertEqual(message["token"], .string(Self.fcmToken))
        XCTAssertEqual(message["android"], .object(["priority": .string("normal")]))
        XCTAssertNil(message["notification"])
        XCTAssertEqual(
            message["data"],
            .object([
                "cs": .string("7"), "event_id": .string("$ev1"), "type": .string("m.room.message"),
                "sender": .string("@alice:example.org"), "sender_display_name": .string("Alice"),
                "room_name": .string("Lunch"), "room_id": .string("!room:example.org"),
                "content_msgtype": .string("m.text"), "content_body": .string("Pizza?"), "prio": .string("normal"),
                "unread": .string("2"), "missed_calls": .string("1"),
            ]))

        let delivered = try XCTUnwrap(webPush.messages(for: subscription).first, "\(webPush.requests.map(\.outcome))")
        XCTAssertEqual(delivered.urgency, "low")
        XCTAssertEqual(delivered.ttl, 900)
        XCTAssertEqual(delivered.subject, "mailto:matrix@example.org")
        XCTAssertEqual(
            try JSONValue.parse(delivered.plaintext),
            .object([
                "app": .string("element"), "room_id": .string("!room:example.org"), "room_name": .string("Lunch"),
                "event_id": .string("$ev1"), "sender": .string("@alice:example.org"),
                "sender_display_name": .string("Alice"), "type": .string("m.room.message"), "unread": .number(2),
                "missed_calls": .number(1), "content": .object(["msgtype": .string("m.text"), "body": .string("Pizza?")]),
            ]))

        // prio high: FCM's high priority, Web Push's normal urgency.
        XCTAssertEqual(try rejected(try notify(Self.message(devices: [Self.device(Self.androidApp, Self.fcmToken)]))), [])
        XCTAssertEqual(
            fcm.sendRequests.last?.bodyJSON?.objectValue?["message"]?.objectValue?["android"],
            .object(["priority": .string("high")]))
    }

    // MARK: Rejected pushkeys and upstream trouble

    func testDeadPushkeysAreRejectedAndTheirStoredDevicesPruned() throws {
        try startWithApps()
        let apnsToken = DeviceToken.fromHex(Self.apnsHex)!
        let subscription = try webPush.createSubscription()
        try store(apnsToken.bytes, app: Self.iosApp, selector: "matrix-ios-0000000000")
        try store(Array(Self.fcmToken.utf8), app: Self.androidApp, selector: "matrix-android-000000")
        try store(Array(subscription.json.utf8), app: Self.webApp, selector: "matrix-web-0000000000")
        XCTAssertEqual(try pushgate.storedDevices().count, 3)
        apns.setOutcome(.unregistered(since: Int64(Date().timeIntervalSince1970 * 1000) + 60_000), forToken: Self.apnsHex)
        fcm.setOutcome(.unregistered, forToken: Self.fcmToken)
        webPush.markGone(subscription)
        let liveHex = String(repeating: "7e", count: 32)

        let webKey = Base64.encodeURLSafe(subscription.p256dh)
        let webData = #"{"endpoint": "\#(subscription.endpoint)", "auth": "\#(Base64.encodeURLSafe(subscription.auth))"}"#
        let response = try notify(
            Self.message(devices: [
                Self.device(Self.iosApp, apnsToken.base64),
                Self.device("im.example.nobody", "unknown-app-pushkey"),
                Self.device(Self.iosApp, liveHex),
                Self.device(Self.androidApp, Self.fcmToken),
                Self.device(Self.webApp, webKey, data: webData),
                Self.device(Self.iosApp, "not-a-token"),
                Self.device(Self.androidApp, "bad-default-payload-token", data: #"{"default_payload": "oops"}"#),
            ]))
        XCTAssertEqual(
            try rejected(response),
            [apnsToken.base64, "unknown-app-pushkey", Self.fcmToken, webKey, "not-a-token", "bad-default-payload-token"])
        XCTAssertEqual(try pushgate.storedDevices().count, 0, "every dead pushkey's stored device is pruned")
        XCTAssertEqual(apns.requests.map(\.path).sorted(), ["/3/device/\(Self.apnsHex)", "/3/device/\(liveHex)"])
        XCTAssertEqual(fcm.sendRequests.count, 1, "nothing is sent for a pushkey rejected before sending")

        // The metrics count the dialect's pushes; /status shows its last answers.
        let metrics = try PrometheusText(try pushgate.client.get("/metrics").text)
        XCTAssertEqual(metrics.value("pushgate_pushes_total", ["provider": "apns", "dialect": "matrix", "result": "delivered"]), 1)
        XCTAssertEqual(metrics.value("pushgate_pushes_total", ["provider": "fcm", "dialect": "matrix", "result": "dead_token"]), 1)
        XCTAssertEqual(metrics.value("pushgate_requests_total", ["endpoint": "/_matrix", "status": "200"]), 1)
        let status = try pushgate.client.get("/status")
        XCTAssertTrue(status.text.contains(#"<tr data-status="200">"#), status.text)
        XCTAssertTrue(status.text.contains("the upstream reports the token dead: Unregistered"), status.text)
    }

    func testUpstreamTroubleIsA502AndTheTokenStays() throws {
        try startWithApps()
        try store(DeviceToken.fromHex(Self.apnsHex)!.bytes, app: Self.iosApp, selector: "matrix-ios-0000000000")
        apns.inject(.status(503, reason: "ServiceUnavailable"), forToken: Self.apnsHex)
        let unavailable = try notify(Self.message(devices: [Self.device(Self.iosApp, Self.apnsHex)]))
        XCTAssertEqual(unavailable.status, 502, unavailable.text)
        XCTAssertEqual(try JSONValue.parse(unavailable.body).objectValue?["errcode"], .string("M_UNKNOWN"))
        apns.clearFaults()

        fcm.setOutcome(.invalidArgument, forToken: Self.fcmToken)
        let refused = try notify(Self.message(devices: [Self.device(Self.androidApp, Self.fcmToken)]))
        XCTAssertEqual(refused.status, 502, refused.text)
        XCTAssertEqual(try pushgate.storedDevices().count, 1, "trouble that is not the token's prunes nothing")

        // The same device again once the upstream is well: delivered.
        XCTAssertEqual(try rejected(try notify(Self.message(devices: [Self.device(Self.iosApp, Self.apnsHex)]))), [])
        let status = try pushgate.client.get("/status")
        XCTAssertTrue(status.text.contains(#"<tr data-status="502">"#), status.text)
    }

    // MARK: Bad input

    func testMalformedRequestsAreRefusedAndNothingIsSent() throws {
        try startWithApps()
        func refusal(_ body: String) throws -> (Int, String?, String?) {
            let response = try notify(body)
            let object = try? JSONValue.parse(response.body).objectValue
            return (response.status, object?["errcode"]?.stringValue, object?["error"]?.stringValue)
        }
        let notJSON = try refusal("{not json")
        XCTAssertEqual(notJSON.0, 400)
        XCTAssertEqual(notJSON.1, "M_NOT_JSON")
        XCTAssertEqual(notJSON.2, "Expected JSON request body")
        XCTAssertEqual(try refusal(#"{"notification": []}"#).2, "Invalid notification: expecting object in 'notification' key")
        XCTAssertEqual(try refusal(#"{"notification": {"devices": {}}}"#).2, "Expected list in 'devices' key")
        XCTAssertEqual(try refusal(#"{"notification": {"devices": []}}"#).2, "No devices in notification")
        XCTAssertEqual(
            try refusal(#"{"notification": {"devices": [{"app_id": "\#(Self.iosApp)"}]}}"#).2,
            "Device with missing or non-string pushkey")
        XCTAssertEqual(
            try refusal(#"{"notification": {"counts": {"unread": "2"}, "devices": [\#(Self.device(Self.iosApp, Self.apnsHex))]}}"#).0,
            400)
        var invalidUTF8 = Array(#"{"notification": {"room_name": ""#.utf8)
        invalidUTF8 += [0xC3, 0x28] + Array(#"", "devices": []}}"#.utf8)
        let badBytes = try pushgate.client.post("/_matrix/push/v1/notify", contentType: "application/json", body: invalidUTF8)
        XCTAssertEqual(badBytes.status, 400)

        // Nested past the parser's bound, and over the body limit.
        XCTAssertEqual(try refusal(String(repeating: "[", count: 5000) + String(repeating: "]", count: 5000)).1, "M_NOT_JSON")
        let huge = try notify(#"{"notification": {"room_name": "\#(String(repeating: "x", count: 1_100_000))", "devices": []}}"#)
        XCTAssertEqual(huge.status, 413, huge.text)
        XCTAssertEqual(try JSONValue.parse(huge.body).objectValue?["errcode"], .string("M_TOO_LARGE"))

        // Another path or method: the spec's M_UNRECOGNIZED.
        let get = try pushgate.client.get("/_matrix/push/v1/notify")
        XCTAssertEqual(get.status, 405)
        XCTAssertEqual(get.header("Allow"), "POST")
        let elsewhere = try pushgate.client.post("/_matrix/push/v1/other", contentType: "application/json", body: "{}")
        XCTAssertEqual(elsewhere.status, 404)
        XCTAssertEqual(try JSONValue.parse(elsewhere.body).objectValue?["errcode"], .string("M_UNRECOGNIZED"))
        XCTAssertEqual(apns.requests.count + fcm.sendRequests.count + webPush.requests.count, 0)

        // Fields this version does not know are ignored, as Sygnal ignores them.
        let extra = try notify(
            #"{"notification": {"event_id": "$e", "room_id": "!r:x", "future_field": {"a": [1]}, "devices": [\#(Self.device(Self.iosApp, Self.apnsHex))]}, "also": true}"#)
        XCTAssertEqual(try rejected(extra), [])
        XCTAssertEqual(apns.requests.count, 1)
    }

    // MARK: Which apps Matrix reaches

    /// An app Matrix may push to only once its operator opened it: a homeserver's users choose
    /// their pushers' app_id and pushkey, so every other app (a softphone's PushKit app here)
    /// answers as an unknown app_id does and nothing is sent to its devices.
    func testOnlyAppsOpenedToMatrixArePushedTo() throws {
        try startWithApps(environment: ["PUSHGATE_LOG_LEVEL": "info"])
        let softphone = "com.example.softphone.pushkit"
        try pushgate.addMockAPNsApp(id: softphone, ["--topic", "com.example.softphone.voip", "--push-type", "voip"])
        let softphoneHex = String(repeating: "5a", count: 32)
        try store(DeviceToken.fromHex(softphoneHex)!.bytes, app: softphone, selector: "matrix-softphone-00000")
        let spoofedCall = Self.device(
            softphone, softphoneHex, data: #"{"default_payload": {"aps": {"alert": "Incoming call"}, "caller": "+1555"}}"#)

        // Closed: the pushkey is rejected exactly as an unknown app_id's, byte for byte.
        let closed = try notify(Self.message(devices: [spoofedCall]))
        let unknown = try notify(Self.message(devices: [Self.device("im.example.nobody", softphoneHex)]))
        XCTAssertEqual(try rejected(closed), [softphoneHex])
        XCTAssertEqual(closed.body, unknown.body)
        XCTAssertEqual(closed.header("Content-Type"), unknown.header("Content-Type"))
        let mixed = try notify(Self.message(devices: [spoofedCall, Self.device(Self.iosApp, Self.apnsHex)]))
        XCTAssertEqual(try rejected(mixed), [softphoneHex])
        XCTAssertEqual(apns.requests.map(\.path), ["/3/device/\(Self.apnsHex)"], "nothing reaches the closed app's device")
        XCTAssertEqual(try pushgate.storedDevices().count, 1, "a closed app's stored device is not pruned")
        try pushgate.waitForServeLog(containing: "which is not open to Matrix")

        // What the operator sees: apps list, /status, doctor.
        let list = try pushgate.cli(["apps", "list"])
        XCTAssertTrue(list.stdout.contains("MATRIX"), list.stdout)
        let rows = list.stdout.split(separator: "\n")
        XCTAssertTrue(try XCTUnwrap(rows.first { $0.hasPrefix(softphone) }).hasSuffix("closed"), list.stdout)
        XCTAssertTrue(try XCTUnwrap(rows.first { $0.hasPrefix(Self.voipApp) }).hasSuffix("open"), list.stdout)
        let status = try pushgate.client.get("/status").text
        XCTAssertTrue(status.contains(#"data-matrix-app="\#(Self.voipApp)""#), status)
        XCTAssertFalse(status.contains(#"data-matrix-app="\#(softphone)""#), status)
        let doctor = try pushgate.cli(["doctor"])
        XCTAssertTrue(doctor.stdout.contains("apps homeservers may push to: "), doctor.stdout)
        let reached = try XCTUnwrap(doctor.stdout.split(separator: "\n").first { $0.contains("apps homeservers may push to") })
        XCTAssertTrue(reached.contains(Self.iosApp), doctor.stdout)
        XCTAssertFalse(reached.contains(softphone), doctor.stdout)

        // Opened with --replace: pushed. Replaced again without --matrix: closed again. serve
        // may answer from its catalog of up to a second ago, so each change is awaited.
        func rejectedOnceSettled(expecting expected: [String]) throws -> [String] {
            var last: [String] = []
            for _ in 0..<50 {
                last = try rejected(try notify(Self.message(devices: [spoofedCall])))
                if last == expected { break }
                Thread.sleep(forTimeInterval: 0.1)
            }
            return last
        }
        try pushgate.addMockAPNsApp(
            id: softphone, ["--topic", "com.example.softphone.voip", "--push-type", "voip", "--matrix", "--replace"])
        XCTAssertEqual(try rejectedOnceSettled(expecting: []), [])
        XCTAssertEqual(apns.requests.last?.path, "/3/device/\(softphoneHex)")
        XCTAssertEqual(apns.requests.last?.headers["apns-push-type"], "voip")
        try pushgate.addMockAPNsApp(id: softphone, ["--topic", "com.example.softphone.voip", "--push-type", "voip", "--replace"])
        XCTAssertEqual(try rejectedOnceSettled(expecting: [softphoneHex]), [softphoneHex])
        let sent = apns.requests.count
        XCTAssertEqual(try rejected(try notify(Self.message(devices: [spoofedCall]))), [softphoneHex])
        XCTAssertEqual(apns.requests.count, sent, "nothing is sent once it is closed again")
    }

    /// doctor warns when homeservers are listed but no app is open: every pushkey is rejected
    /// and the homeservers delete those pushers.
    func testDoctorWarnsWhenHomeserversAreListedButNoAppIsOpen() throws {
        pushgate = try PushgateInstance(
            environment: PushgateInstance.upstreams(apns: apns).merging(["PUSHGATE_MATRIX_HOMESERVERS": "192.0.2.10"]) {
                _, own in own
            })
        try pushgate.addMockAPNsApp(id: Self.iosApp, ["--topic", "im.example.app"])
        let closed = try pushgate.cli(["doctor"])
        XCTAssertTrue(closed.stdout.contains("homeservers are listed but no app is open to Matrix"), closed.stdout)
        try pushgate.addMockAPNsApp(id: Self.iosApp, ["--topic", "im.example.app", "--matrix", "--replace"])
        let open = try pushgate.cli(["doctor"])
        XCTAssertFalse(open.stdout.contains("no app is open to Matrix"), open.stdout)
        XCTAssertTrue(open.stdout.contains("apps homeservers may push to: \(Self.iosApp)"), open.stdout)
    }

    // MARK: Who may call

    func testCallersOutsideTheHomeserverListAreRefused() throws {
        // serve alone refuses: nginx lets loopback through, serve's list does not hold it.
        try startWithApps(environment: ["PUSHGATE_MATRIX_HOMESERVERS": "10.20.0.0/16"], nginxEnvironment: [:])
        let body = Self.message(devices: [Self.device(Self.iosApp, Self.apnsHex)])
        let byServe = try notify(body)
        XCTAssertEqual(byServe.status, 403, byServe.text)
        XCTAssertEqual(try JSONValue.parse(byServe.body).objectValue?["errcode"], .string("M_FORBIDDEN"))
        XCTAssertTrue(byServe.text.contains("PUSHGATE_MATRIX_HOMESERVERS"), byServe.text)
        pushgate.stop()

        // Rendered with the same list, nginx refuses before pushgate is asked.
        try startWithApps(environment: ["PUSHGATE_MATRIX_HOMESERVERS": "10.20.0.0/16"])
        let byNginx = try notify(body)
        XCTAssertEqual(byNginx.status, 403, byNginx.text)
        XCTAssertEqual(
            try JSONValue.parse(byNginx.body),
            .object(["errcode": .string("M_FORBIDDEN"), "error": .string("this address may not call this endpoint")]))
        XCTAssertEqual(apns.requests.count, 0, "nothing is sent for a refused caller")

        // The doctor warns about a list open to everyone.
        var environment = pushgate.environment
        environment["PUSHGATE_MATRIX_HOMESERVERS"] = "0.0.0.0/0"
        let open = try PushgateInstance.Output.of(PushgateInstance.executable.path, ["doctor"], environment: environment, stdin: nil)
        XCTAssertTrue(open.stdout.contains("lets every address call /_matrix/push/v1/notify"), open.stdout)
        let closed = try pushgate.cli(["doctor"])
        XCTAssertFalse(closed.stdout.contains("lets every address"), closed.stdout)
    }
}
