import Foundation
import MockUpstream
import PushTesting
import XCTest

/// What an unauthenticated caller may store, and the bodies every endpoint refuses, through the
/// real nginx and `pushgate serve`: each refusal in its dialect's shape, the store unchanged.
final class OpenInternetLimitsIntegrationTests: BeamsTestCase, RunsOnPostgreSQL {
    static let apnsApp = "com.example.limits"
    static let fcmApp = "com.example.limits.android"
    static let appKey = "limits-app-key-1"
    static let selector = "12869E0E6E553673C54F29105A0647204C416A2A:7C3A0D14"
    static let fcmToken = "dXk:APA91bLimits-token_1"

    override func setUpWithError() throws {
        try super.setUpWithError()
        pushgate = try PushgateInstance(
            environment: PushgateInstance.upstreams(apns: apns, fcm: fcm).merging([
                "PUSHGATE_BRIDGE_APNS_APP": Self.apnsApp, "PUSHGATE_BRIDGE_FCM_APP": Self.fcmApp,
                "PUSHGATE_BRIDGE_TOPICS": "news, alerts/eu", "PUSHGATE_COSPACE_FCM_APP": Self.fcmApp,
            ]) { _, own in own })
        try pushgate.addMockAPNsApp(id: Self.apnsApp, ["--topic", Self.apnsApp, "--app-key", Self.appKey])
        try pushgate.addMockFCMApp(id: Self.fcmApp, fcm: fcm)
        let user = try pushgate.run(
            PushgateInstance.executable.path, ["users", "add", "alice", "--password-stdin"], stdin: "alice-secret\n")
        XCTAssertEqual(user.status, 0, user.stderr)
        try pushgate.start()
    }

    /// What the store holds, as operators see it: every device with its owners, and the outbox.
    func storeContents() throws -> String {
        let devices = try pushgate.cli(["tokens", "list", "--json"])
        let outbox = try pushgate.cli(["outbox", "status"])
        return devices.stdout + outbox.stdout
    }

    func bridge(_ operation: String, destination: String, topic: String) throws -> HTTPClient.Response {
        try pushgate.client.post(
            "/push/notifications", contentType: "application/json",
            body: #"{"\#(operation)": {"destination": "\#(destination)", "topic": "\#(topic)"}}"#)
    }

    func bridgeError(_ response: HTTPClient.Response) -> String? {
        (try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
            .flatMap { $0["response"] as? [String: Any] }?["error"] as? String
    }

    // MARK: Beams

    func testTheBeams5001stInterestIsRefusedInBeamsShape() throws {
        let id = try client(key: Self.appKey, type: "apns", token: String(repeating: "ab", count: 32), interests: [])
        for n in 0..<5_000 {
            let subscribed = try send("POST", "/client_api/v1/clients/\(id)/interests/i\(n)", #"{"app_key": "\#(Self.appKey)"}"#)
            guard subscribed.status == 200 else { return XCTFail("interest \(n): \(subscribed.status) \(subscribed.text)") }
        }
        let before = try storeContents()
        let refused = try send("POST", "/client_api/v1/clients/\(id)/interests/one_more", #"{"app_key": "\#(Self.appKey)"}"#)
        try assertBeamsError(refused, 422, "Unprocessable Entity", contains: "5000 interests")
        XCTAssertEqual(try storeContents(), before)
        // Subscribing again to one it has is no new interest; unsubscribing makes room.
        XCTAssertEqual(
            try send("POST", "/client_api/v1/clients/\(id)/interests/i7", #"{"app_key": "\#(Self.appKey)"}"#).status, 200)
        XCTAssertEqual(
            try send("DELETE", "/client_api/v1/clients/\(id)/interests/i7", #"{"app_key": "\#(Self.appKey)"}"#).status, 200)
        XCTAssertEqual(
            try send("POST", "/client_api/v1/clients/\(id)/interests/one_more", #"{"app_key": "\#(Self.appKey)"}"#).status,
            200)
    }

    // MARK: Bridge

    func testTheBridge1001stSubscriptionOfADeviceIsRefused() throws {
        let destination = "gcm://\(Self.fcmToken)"
        for n in 0..<1_000 {
            let subscribed = try bridge("pnsub", destination: destination, topic: "news/\(n)")
            guard subscribed.status == 200 else { return XCTFail("subscription \(n): \(subscribed.status) \(subscribed.text)") }
        }
        let before = try storeContents()
        let refused = try bridge("pnsub", destination: destination, topic: "news/one-more")
        XCTAssertEqual(refused.status, 422, refused.text)
        XCTAssertEqual(
            bridgeError(refused),
            "the destination has 1000 subscriptions, the most one may have: unsubscribe from one first")
        XCTAssertEqual(try storeContents(), before)
        XCTAssertEqual(try bridge("pnsub", destination: destination, topic: "news/7").status, 200, "an existing one")
        // Another device has room of its own.
        XCTAssertEqual(try bridge("pnsub", destination: "gcm://\(Self.fcmToken)2", topic: "news/one-more").status, 200)
    }

    func testATopicOutsidePUSHGATE_BRIDGE_TOPICSIsRefused() throws {
        let destination = "gcm://\(Self.fcmToken)"
        for topic in ["news", "news//", "alerts/eu/de", ">alerts/eu/"] {
            let subscribed = try bridge("pnsub", destination: destination, topic: topic)
            XCTAssertEqual(subscribed.status, 200, "\(topic): \(subscribed.text)")
        }
        let before = try storeContents()
        for topic in ["newsroom", "alerts", "alerts/us", "sports//"] {
            let refused = try bridge("pnsub", destination: destination, topic: topic)
            XCTAssertEqual(refused.status, 403, "\(topic): \(refused.text)")
            XCTAssertTrue(
                bridgeError(refused)?.hasSuffix("is outside the topics this bridge serves") ?? false, refused.text)
        }
        XCTAssertEqual(try storeContents(), before)
        XCTAssertEqual(try bridge("pnunsub", destination: destination, topic: "sports").status, 200, "unsubscribing stays open")
    }

    // MARK: Token Reporter

    func testAShortSelectorAndALargeBodyAreRefusedByTheTokenReporter() throws {
        let token = "Udl99X2JFP1bWwS5gR%2FwGeLE1hmAB2CMpr1Ej0wxkrY%3D"
        let before = try storeContents()
        let short = try pushgate.client.get("/token/?selector=ABCDEF0123456:1&token_calls=\(token)&appid_calls=\(Self.apnsApp)")
        XCTAssertEqual(short.status, 400, short.text)
        XCTAssertEqual(short.text, "selector is shorter than 16 characters\n")

        let large = try pushgate.client.post(
            "/token/", contentType: "application/x-www-form-urlencoded",
            body: "selector=\(Self.selector)&token_calls=\(token)&appid_calls=\(Self.apnsApp)&filler="
                + String(repeating: "x", count: 17 * 1024))
        XCTAssertEqual(large.status, 413, large.text)
        XCTAssertEqual(large.text, "body is larger than 16384 bytes\n")
        XCTAssertEqual(try storeContents(), before)

        // Sixteen characters are enough.
        let sixteen = try pushgate.client.get("/token/?selector=ABCDEF0123456:12&token_calls=\(token)&appid_calls=\(Self.apnsApp)")
        XCTAssertEqual(sixteen.status, 200, sixteen.text)
    }

    // MARK: Nesting

    /// `{"a":{"a":…}}` `depth` levels deep.
    static func nested(_ depth: Int) -> String {
        String(repeating: #"{"a":"#, count: depth - 1) + "{}" + String(repeating: "}", count: depth - 1)
    }

    func testJSONNested33DeepIsRefusedWith400OnEveryEndpoint() throws {
        let alice = ["Authorization": "Basic " + Data("alice:alice-secret".utf8).base64EncodedString()]
        let clientID = try client(key: Self.appKey, type: "apns", token: String(repeating: "cd", count: 32), interests: [])
        let deep = Self.nested(33)
        // Every endpoint that reads a JSON body, with its dialect's way of saying so.
        let endpoints: [(method: String, path: String, headers: [String: String], says: String)] = [
            ("POST", "/token/", [:], "JSON body is nested deeper than 32 levels"),
            ("POST", "/removeAccount/", [:], "JSON body is nested deeper than 32 levels"),
            ("POST", "/pnm2/send", [:], "nested deeper than 32 levels"),
            ("POST", "/pnm2/multisend", [:], "nested deeper than 32 levels"),
            ("POST", "/api/push", alice, "invalid-json"),
            ("POST", "/api/push/events", [:], "invalid-json"),
            ("POST", "/client_api/v1/clients", [:], "nested deeper than 32 levels"),
            ("PUT", "/client_api/v1/clients/\(clientID)/token", [:], "nested deeper than 32 levels"),
            ("POST", "/client_api/v1/clients/\(clientID)/interests/news", [:], "nested deeper than 32 levels"),
            ("POST", "/publish_api/v1/instances/\(Self.appKey)/publishes/interests", [:], "nested deeper than 32 levels"),
            ("POST", "/push/notifications", [:], "nested deeper than 32 levels"),
            ("POST", "/push/topics/news", [:], "nested deeper than 32 levels"),
        ]
        let before = try storeContents()
        for endpoint in endpoints {
            let response = try pushgate.client.request(
                endpoint.method, endpoint.path,
                headers: endpoint.headers.merging(["Content-Type": "application/json"]) { mine, _ in mine },
                body: Array(deep.utf8))
            XCTAssertEqual(response.status, 400, "\(endpoint.method) \(endpoint.path): \(response.text)")
            XCTAssertTrue(response.text.contains(endpoint.says), "\(endpoint.method) \(endpoint.path): \(response.text)")
        }
        XCTAssertEqual(try storeContents(), before)
        // 32 levels is a document each endpoint reads (and refuses for what it says, if at all).
        let fine = try pushgate.client.request(
            "POST", "/push/notifications", headers: ["Content-Type": "application/json"], body: Array(Self.nested(32).utf8))
        XCTAssertFalse(fine.text.contains("nested deeper"), fine.text)
    }
}
