import Foundation
import MockUpstream
import PushCore
import PushTesting
import XCTest

/// A NUL (`\u0000`) in a JSON string, on SQLite and on PostgreSQL alike (scripts/test runs this
/// class on both): each request gets the same answer on either engine, a 4xx in its dialect's
/// shape or 2xx, and what was accepted comes back out of the store byte for byte (it reaches
/// the mock APNs and FCM with its NUL). PostgreSQL's text cannot hold NUL, and its jsonb not
/// even the escape, so on it such requests used to answer 500.
final class NULInputIntegrationTests: BeamsTestCase, RunsOnPostgreSQL {
    /// A cospace application id: team id, then bundle id.
    static let apnsApp = "N7LT3AM123.com.example.nul"
    static let fcmApp = "com.example.nul.android"
    static let appKey = "nul-app-key-1"
    static let apnsToken = String(repeating: "e1", count: 32)
    static let fcmToken = "dXk:APA91bNul-token_1"
    /// JSON's escape of NUL, as a request carries it.
    static let nul = #"\u0000"#

    var aliceID = ""

    override func setUpWithError() throws {
        try super.setUpWithError()
        pushgate = try PushgateInstance(
            environment: PushgateInstance.upstreams(apns: apns, fcm: fcm).merging([
                "PUSHGATE_BRIDGE_APNS_APP": Self.apnsApp, "PUSHGATE_BRIDGE_FCM_APP": Self.fcmApp,
                "PUSHGATE_COSPACE_FCM_APP": Self.fcmApp,
            ]) { _, own in own })
        try pushgate.addMockAPNsApp(id: Self.apnsApp, ["--topic", "com.example.nul", "--app-key", Self.appKey])
        try pushgate.addMockFCMApp(id: Self.fcmApp, fcm: fcm, ["--app-key", Self.appKey])
        let user = try pushgate.run(
            PushgateInstance.executable.path, ["users", "add", "alice", "--password-stdin"], stdin: "alice-secret\n")
        XCTAssertEqual(user.status, 0, user.stderr)
        aliceID = user.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        try pushgate.start()
    }

    var alice: [String: String] {
        ["Authorization": "Basic " + Data("alice:alice-secret".utf8).base64EncodedString()]
    }

    /// The string values of every JSON document the mocks received, NULs decoded.
    func deliveredStrings() -> [String] {
        func strings(_ value: JSONValue) -> [String] {
            switch value {
            case .string(let text): return [text]
            case .array(let values): return values.flatMap(strings)
            case .object(let fields): return fields.values.flatMap(strings)
            default: return []
            }
        }
        return (apns.requests + fcm.sendRequests).compactMap(\.bodyJSON).flatMap(strings)
    }

    /// Waits until `text` reached the mocks `times` times (once per device it went to).
    func waitForDelivery(of text: String, times: Int = 1) throws {
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            if deliveredStrings().filter({ $0 == text }).count >= times { return }
            usleep(100_000)
        }
        XCTFail("\(text.debugDescription) was not delivered: \(deliveredStrings())\n\(pushgate.serveLog)")
    }

    // MARK: Accepted, and delivered as sent

    func testACospaceEventWithANULIsQueuedAndDeliveredWithIt() throws {
        let registered = try pushgate.client.post(
            "/api/push", contentType: "application/json",
            body: #"{"system":"apns","action":"add","device_token":"\#(Self.apnsToken)","application_id":"\#(Self.apnsApp)"}"#,
            headers: alice)
        XCTAssertEqual(registered.status, 200, registered.text)
        let gcm = try pushgate.client.post(
            "/api/push", contentType: "application/json",
            body: #"{"system":"gcm","action":"add","registration_id":"\#(Self.fcmToken)"}"#, headers: alice)
        XCTAssertEqual(gcm.status, 200, gcm.text)

        let event = #"{"owner":"\#(aliceID)","message":"chat_message","chat":"52a9fd3c-8aad-11e0-9138-0024e8f90cc0","uuid":"c1aa1566-84d7-11e2-a7a8-0024e8f90cc0","time":"1362407297","user":"1de7257a-4f34-11e0-ab6e-0024e8f90cc1","user_name":"John\#(Self.nul)Doe","type":"text","text":"lunch\#(Self.nul)?"}"#
        let queued = try pushgate.client.post("/api/push/events", contentType: "application/json", body: event)
        XCTAssertEqual(queued.status, 200, queued.text)
        XCTAssertEqual(queued.text, #"{"queued":2}"#)
        try waitForDelivery(of: "lunch\u{0}?", times: 2)
        XCTAssertTrue(deliveredStrings().contains("John\u{0}Doe"), "\(deliveredStrings())")
        XCTAssertEqual(
            apns.requests.compactMap(\.bodyJSON).first?.objectValue?["text"]?.stringValue, "lunch\u{0}?",
            "APNs's half")
        XCTAssertEqual(
            fcm.sendRequests.compactMap(\.bodyJSON).first?.objectValue?["message"]?.objectValue?["data"]?.objectValue?[
                "text"]?.stringValue, "lunch\u{0}?", "FCM's half")
    }

    func testABeamsPublishWithANULIsDeliveredWithIt() throws {
        try client(key: Self.appKey, type: "apns", token: Self.apnsToken, interests: ["donuts"])
        try client(key: Self.appKey, type: "fcm", token: Self.fcmToken, interests: ["donuts"])
        let published = try send(
            "POST", "/publish_api/v1/instances/\(Self.appKey)/publishes/interests",
            #"{"interests":["donuts"],"apns":{"aps":{"alert":"Hi\#(Self.nul)!"}},"fcm":{"data":{"k\#(Self.nul)":"v\#(Self.nul)"}}}"#)
        XCTAssertEqual(published.status, 200, published.text)
        try waitForDelivery(of: "Hi\u{0}!")
        try waitForDelivery(of: "v\u{0}")
        XCTAssertEqual(
            fcm.sendRequests.compactMap(\.bodyJSON).first?.objectValue?["message"]?.objectValue?["data"]?.objectValue?
                .keys.sorted(), ["k\u{0}"], "keys keep their NUL too")
    }

    func testABridgeTopicPublishWithANULIsDeliveredWithIt() throws {
        let subscribed = try pushgate.client.post(
            "/push/notifications", contentType: "application/json",
            body: #"{"pnsub": {"destination": "gcm://\#(Self.fcmToken)", "topic": "news"}}"#)
        XCTAssertEqual(subscribed.status, 200, subscribed.text)
        let published = try pushgate.client.post(
            "/push/topics/news", contentType: "application/json",
            body: #"{"fcm": {"data": {"headline": "extra\#(Self.nul)extra"}}}"#)
        XCTAssertTrue((200..<300).contains(published.status), published.text)
        try waitForDelivery(of: "extra\u{0}extra")
    }

    // MARK: Refused alike

    func testNULsInNamesAndTokensAreRefusedInEachDialectsShape() throws {
        let id = try client(key: Self.appKey, type: "apns", token: Self.apnsToken, interests: [])
        let before = try pushgate.cli(["tokens", "list", "--json"]).stdout
        let refusals: [(method: String, path: String, body: String, status: Int)] = [
            // Beams register: the app key, the token, the platform type.
            ("POST", "/client_api/v1/clients", #"{"app_key":"\#(Self.appKey)\#(Self.nul)","platform_type":"apns","token":"\#(Self.apnsToken)"}"#, 400),
            ("POST", "/client_api/v1/clients", #"{"app_key":"\#(Self.appKey)","platform_type":"apns","token":"\#(Self.apnsToken)\#(Self.nul)"}"#, 400),
            ("POST", "/client_api/v1/clients", #"{"app_key":"\#(Self.appKey)","platform_type":"apns\#(Self.nul)","token":"\#(Self.apnsToken)"}"#, 400),
            ("PUT", "/client_api/v1/clients/\(id)/token", #"{"platform_type":"apns","token":"\#(Self.apnsToken)\#(Self.nul)"}"#, 400),
            ("POST", "/client_api/v1/clients/\(id)/interests/donuts", #"{"app_key":"\#(Self.appKey)\#(Self.nul)"}"#, 400),
            // Beams publish: an interest name.
            ("POST", "/publish_api/v1/instances/\(Self.appKey)/publishes/interests", #"{"interests":["don\#(Self.nul)uts"],"apns":{"aps":{}}}"#, 422),
            // Bridge messages: the topic, the destination's token.
            ("POST", "/push/notifications", #"{"pnsub": {"destination": "gcm://\#(Self.fcmToken)", "topic": "news\#(Self.nul)"}}"#, 400),
            ("POST", "/push/notifications", #"{"pnsub": {"destination": "gcm://\#(Self.fcmToken)\#(Self.nul)", "topic": "news"}}"#, 400),
            ("POST", "/push/notifications", #"{"pnunsub": {"destination": "gcm://\#(Self.fcmToken)", "topic": "news\#(Self.nul)"}}"#, 400),
            // cospace: the owner of an event, a registration's token and topic.
            ("POST", "/api/push/events", #"{"owner":"\#(aliceID)\#(Self.nul)","message":"fax_new","fax":"f","phone":"p","page_count":"2"}"#, 400),
        ]
        for refusal in refusals {
            let response = try send(refusal.method, refusal.path, refusal.body)
            XCTAssertEqual(response.status, refusal.status, "\(refusal.method) \(refusal.path) \(refusal.body): \(response.text)")
            XCTAssertNotNil(try? JSONValue.parse(response.body), "the dialect's JSON shape: \(response.text)")
        }
        for body in [
            #"{"system":"apns","action":"add","device_token":"\#(Self.apnsToken)","application_id":"\#(Self.apnsApp)","apns_topic":"t\#(Self.nul)"}"#,
            #"{"system":"apns","action":"add","device_token":"\#(Self.apnsToken)","application_id":"\#(Self.apnsApp)\#(Self.nul)"}"#,
            #"{"system":"gcm","action":"add","registration_id":"\#(Self.fcmToken)\#(Self.nul)"}"#,
        ] {
            let response = try pushgate.client.post("/api/push", contentType: "application/json", body: body, headers: alice)
            XCTAssertEqual(response.status, 400, "\(body): \(response.text)")
        }
        XCTAssertEqual(try pushgate.cli(["tokens", "list", "--json"]).stdout, before, "nothing stored")
    }
}
