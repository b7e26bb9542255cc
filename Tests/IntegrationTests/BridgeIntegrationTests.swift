import Foundation
import MockUpstream
import PushCore
import PushTesting
import XCTest

/// The Diffusion push bridge through the real nginx and `pushgate serve`: the document's
/// messages as a client sends them, publishes fanned out through the outbox to the mock APNs
/// and FCM, and what the store holds afterwards (`tokens list --json`).
final class BridgeIntegrationTests: XCTestCase {
    static let apnsApp = "com.example.pushgate"
    static let fcmApp = "com.example.android"
    /// 32 raw bytes, as an iOS app base64-encodes them into an apns:// destination.
    static let apnsBytes = (0..<32).map { UInt8(0xA0 + $0) }
    static let apnsBase64 = Data(apnsBytes).base64EncodedString()
    static let apnsHex = apnsBytes.map { String(format: "%02x", $0) }.joined()
    static let fcmToken = "dXk:APA91bBridge-token_1"

    var apns: MockAPNs!
    var fcm: MockFCM!
    var pushgate: PushgateInstance!

    override func setUpWithError() throws {
        apns = try MockAPNs(configuration: MockAPNsConfiguration(providerKeys: [try .fixture]))
        fcm = try MockFCM(configuration: MockFCMConfiguration(serviceAccounts: [try .fixture]))
    }

    override func tearDown() {
        pushgate?.stop()
        pushgate = nil
        apns?.shutdown()
        fcm?.shutdown()
    }

    /// pushgate in front of both mocks, with both bridge apps registered (or not).
    func start(configured: Bool = true) throws {
        var environment = PushgateInstance.upstreams(apns: apns, fcm: fcm)
        if configured {
            environment["PUSHGATE_BRIDGE_APNS_APP"] = Self.apnsApp
            environment["PUSHGATE_BRIDGE_FCM_APP"] = Self.fcmApp
        }
        pushgate = try PushgateInstance(environment: environment)
        try pushgate.addMockAPNsApp(id: Self.apnsApp, ["--topic", Self.apnsApp])
        try pushgate.addMockFCMApp(id: Self.fcmApp, fcm: fcm)
        try pushgate.start()
    }

    func post(_ body: String, contentType: String? = "application/json") throws -> HTTPClient.Response {
        try pushgate.client.post("/push/notifications", contentType: contentType, body: body)
    }

    func json(_ response: HTTPClient.Response) -> JSONValue? { try? JSONValue.parse(response.body) }

    func errorText(_ response: HTTPClient.Response) -> String? {
        json(response)?.objectValue?["response"]?.objectValue?["error"]?.stringValue
    }

    /// "<token as tokens list shows it> <selector>" for every bridge subscription stored.
    func subscriptions() throws -> [String] {
        var result: [String] = []
        for device in try pushgate.storedDevices() {
            for owner in device["owners"] as? [[String: Any]] ?? [] where owner["kind"] as? String == "bridge" {
                result.append("\(device["app_id"] ?? "") \(device["token"] ?? "") \(owner["selector"] ?? "")")
            }
        }
        return result.sorted()
    }

    func waitUntil(_ what: String, timeout: TimeInterval = 15, _ condition: () throws -> Bool) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if try condition() { return }
            usleep(50_000)
        }
        XCTFail("timed out waiting for \(what)\n\(pushgate.serveLog)")
    }

    // MARK: The document's messages

    func testTheDocumentsGCMMessagesVerbatim() throws {
        try start()
        // The document's placeholders are themselves a valid FCM token and topic path, so its
        // GCM messages go through byte for byte.
        let subscribe = "{  \n\t\"pnsub\":{  \n\t\t\"destination\":\"gcm://destination_token\",\n\t\t\"topic\":\"topic_selector\"\n\t}\n}"
        let subscribed = try post(subscribe)
        XCTAssertEqual(subscribed.status, 200, subscribed.text)
        XCTAssertEqual(subscribed.header("Content-Type"), "application/json")
        XCTAssertEqual(
            subscribed.text,
            #"{"response":{"content":{"pnsub":{"destination":"gcm://destination_token","topic":"topic_selector"}}}}"#)
        XCTAssertEqual(try subscriptions(), ["\(Self.fcmApp) destination_token >topic_selector"])

        let unsubscribe = "{  \n\t\"pnunsub\":{  \n\t\t\"destination\":\"gcm://destination_token\",\n\t\t\"topic\":\"topic_selector\"\n\t}\n}"
        let unsubscribed = try post(unsubscribe)
        XCTAssertEqual(unsubscribed.status, 200, unsubscribed.text)
        XCTAssertEqual(
            unsubscribed.text,
            #"{"response":{"content":{"pnunsub":{"destination":"gcm://destination_token","topic":"topic_selector"}}}}"#)
        XCTAssertEqual(try subscriptions(), [])
        XCTAssertEqual(try pushgate.storedDevices().count, 0, "the device had no other owner")
    }

    func testTheDocumentsAPNsMessages() throws {
        try start()
        // Verbatim, the placeholder is no base64 device token: the document's error shape.
        let verbatim = "{  \n\t\"pnsub\":{  \n\t\t\"destination\":\"apns://destination_token\",\n\t\t\"topic\":\"topic_selector\"\n\t}\n}"
        let refused = try post(verbatim)
        XCTAssertEqual(refused.status, 400)
        XCTAssertEqual(
            refused.text,
            #"{"response":{"error":"destination apns:// must be followed by the base64 of an APNs device token (32 bytes or more)"}}"#)
        XCTAssertEqual(try pushgate.storedDevices().count, 0)

        // The same layout with a token as the document's Objective-C snippet encodes it.
        let subscribe = verbatim.replacingOccurrences(of: "destination_token", with: Self.apnsBase64)
        let subscribed = try post(subscribe)
        XCTAssertEqual(subscribed.status, 200, subscribed.text)
        XCTAssertEqual(
            subscribed.text,
            #"{"response":{"content":{"pnsub":{"destination":"apns://\#(Self.apnsBase64)","topic":"topic_selector"}}}}"#)
        XCTAssertEqual(try subscriptions(), ["\(Self.apnsApp) \(Self.apnsHex) >topic_selector"])
        XCTAssertEqual(try post(subscribe).status, 200, "subscribing again changes nothing")
        XCTAssertEqual(try subscriptions().count, 1)

        let unsubscribe = "{  \n\t\"pnunsub\":{  \n\t\t\"destination\":\"apns://\(Self.apnsBase64)\",\n\t\t\"topic\":\"topic_selector\"\n\t}\n}"
        XCTAssertEqual(try post(unsubscribe).status, 200)
        XCTAssertEqual(try pushgate.storedDevices().count, 0)
    }

    func testTheWrappedRequestEchoesItsCorrelation() throws {
        try start()
        let body = #"{"request": {"correlation": "0b7c6a52-9d1e-4f3a-8c2b-5e6d7f8a9b0c", "content": {"pnsub": {"destination": "gcm://\#(Self.fcmToken)", "topic": "news//"}}}}"#
        let response = try post(body)
        XCTAssertEqual(response.status, 200, response.text)
        XCTAssertEqual(
            response.text,
            #"{"response":{"content":{"pnsub":{"destination":"gcm://\#(Self.fcmToken)","topic":"news//"}},"correlation":"0b7c6a52-9d1e-4f3a-8c2b-5e6d7f8a9b0c"}}"#)
        XCTAssertEqual(try subscriptions(), ["\(Self.fcmApp) \(Self.fcmToken) >news//"])
        let refused = try post(#"{"request": {"correlation": "c-2", "content": {"pnsub": {"destination": "gcm://\#(Self.fcmToken)", "topic": "?news/.*"}}}}"#)
        XCTAssertEqual(refused.status, 400)
        XCTAssertEqual(json(refused)?.objectValue?["response"]?.objectValue?["correlation"], .string("c-2"))
        XCTAssertTrue(errorText(refused)?.contains("regular expression") == true, refused.text)
    }

    func testBadMessagesAreRefusedAndChangeNothing() throws {
        try start()
        let gcm = "gcm://\(Self.fcmToken)"
        let cases: [(body: [UInt8], contentType: String?, status: Int, error: String)] = [
            (Array("{".utf8), "application/json", 400, "body is not valid JSON"),
            (Array(#"{"pnsub": 1}"#.utf8), "application/json", 400, "pnsub must be a JSON object"),
            (Array(#"{"pnsub": {"destination": "\#(gcm)"}}"#.utf8), "application/json", 400, "pnsub.topic is required"),
            (Array(#"{"pnsub": {"destination": ["\#(gcm)"], "topic": "a"}}"#.utf8), "application/json", 400, "pnsub.destination must be a string"),
            (Array(#"{"pnsub": {"destination": "\#(gcm)", "topic": "a"}, "pnunsub": {"destination": "\#(gcm)", "topic": "a"}}"#.utf8), "application/json", 400, "a message holds either pnsub or pnunsub, not both"),
            (Array(#"{"pnsub": {"destination": "mailto:x", "topic": "a"}}"#.utf8), "application/json", 400, "destination must be an apns:// or gcm:// URI"),
            (Array(#"{"pnsub": {"destination": "\#(gcm)", "topic": "a//b"}}"#.utf8), "application/json", 400, "topic selector a//b names a path with an empty part"),
            (Array(#"{"pnsub": {"destination": "\#(gcm)", "topic": "a"}}"#.utf8), "text/plain", 415, "unsupported content type text/plain: use application/json"),
            (Array(#"{"pnsub": {"destination": "\#(gcm)", "topic": "a\#u{FF}"}}"#.utf8).map { $0 == 0xC3 ? 0xFF : $0 }, "application/json", 400, "body is not valid UTF-8"),
            (Array(#"{"pnsub": {"destination": "\#(gcm)", "topic": "\#(String(repeating: "a", count: 40_000))"}}"#.utf8), "application/json", 413, "request body is larger than 16384 bytes"),
        ]
        for (body, contentType, status, error) in cases {
            let response = try pushgate.client.post("/push/notifications", contentType: contentType, body: body)
            XCTAssertEqual(response.status, status, String(decoding: body.prefix(100), as: UTF8.self))
            XCTAssertEqual(errorText(response), error, response.text)
        }
        let get = try pushgate.client.get("/push/notifications")
        XCTAssertEqual(get.status, 405)
        XCTAssertEqual(get.header("Allow"), "POST")
        XCTAssertEqual(errorText(get), "method GET not allowed: use POST")
        XCTAssertEqual(try pushgate.storedDevices().count, 0)
    }

    func testAnUnconfiguredBridgeSaysSoAndTheLogNamesTheKey() throws {
        try start(configured: false)
        let response = try post(#"{"pnsub": {"destination": "apns://\#(Self.apnsBase64)", "topic": "a"}}"#)
        XCTAssertEqual(response.status, 503)
        XCTAssertEqual(response.text, #"{"response":{"error":"this bridge does not serve apns:// destinations"}}"#)
        // serve writes a request's log line after sending its answer: wait for it.
        try pushgate.waitForServeLog(containing: "PUSHGATE_BRIDGE_APNS_APP is not set")
        let gcm = try post(#"{"pnsub": {"destination": "gcm://\#(Self.fcmToken)", "topic": "a"}}"#)
        XCTAssertEqual(errorText(gcm), "this bridge does not serve gcm:// destinations")
        XCTAssertEqual(try pushgate.storedDevices().count, 0)
    }

    // MARK: Publishing

    func subscribe(_ destination: String, _ topic: String) throws {
        let response = try post(#"{"pnsub": {"destination": "\#(destination)", "topic": "\#(topic)"}}"#)
        XCTAssertEqual(response.status, 200, response.text)
    }

    func publish(_ topic: String, _ body: String, headers: [String: String] = [:]) throws -> HTTPClient.Response {
        try pushgate.client.post("/push/topics/\(topic)", contentType: "application/json", body: body, headers: headers)
    }

    func testAPublishReachesEveryMatchingSubscriberOnceThroughTheMocks() throws {
        try start()
        let otherAPNs = Data((0..<32).map { UInt8($0) }).base64EncodedString()
        try subscribe("apns://\(Self.apnsBase64)", "news//")
        try subscribe("apns://\(Self.apnsBase64)", ">news/sport")  // matches too: still one push
        try subscribe("gcm://\(Self.fcmToken)", "?news/sport")
        try subscribe("apns://\(otherAPNs)", "weather")
        try subscribe("gcm://dXk:APA91bOther-token_2", "news/")  // descendants only

        let body = #"{"apns": {"aps": {"alert": {"title": "Goal", "body": "1-0"}}, "match": 42}, "fcm": {"data": {"score": "1-0"}}}"#
        let published = try publish("news/sport", body)
        XCTAssertEqual(published.status, 202, published.text)
        XCTAssertEqual(published.text, #"{"response":{"content":{"queued":3,"topic":"news/sport"}}}"#)

        try waitUntil("one APNs push") { apns.requests.count >= 1 }
        try waitUntil("two FCM sends") { fcm.sendRequests.count >= 2 }
        usleep(300_000)  // a duplicate would have arrived by now
        XCTAssertEqual(apns.requests.map(\.path), ["/3/device/\(Self.apnsHex)"])
        let push = try XCTUnwrap(apns.requests.first)
        XCTAssertEqual(push.headers["apns-topic"], Self.apnsApp)
        XCTAssertEqual(
            push.bodyJSON,
            .object(["aps": .object(["alert": .object(["title": .string("Goal"), "body": .string("1-0")])]), "match": .number(42)]))
        let sends = fcm.sendRequests.compactMap { $0.bodyJSON?.objectValue?["message"]?.objectValue }
        XCTAssertEqual(
            Set(sends.compactMap { $0["token"]?.stringValue }), [Self.fcmToken, "dXk:APA91bOther-token_2"])
        for message in sends {
            XCTAssertEqual(message["data"], .object(["score": .string("1-0")]))
        }

        // The path itself: only news// selects it; an FCM-only publish skips the APNs device.
        let onlyFCM = try publish("news", #"{"fcm": {"notification": {"title": "t"}}}"#)
        XCTAssertEqual(onlyFCM.text, #"{"response":{"content":{"queued":0,"topic":"news"}}}"#)
        let weather = try publish("weather", #"{"apns": {"aps": {"alert": "Rain"}}}"#)
        XCTAssertEqual(weather.text, #"{"response":{"content":{"queued":1,"topic":"weather"}}}"#)
        try waitUntil("the weather push") { apns.requests.count >= 2 }
        XCTAssertEqual(apns.requests.last?.bodyJSON?.objectValue?["aps"], .object(["alert": .string("Rain")]))
    }

    func testDeadTokensFoundDuringFanOutArePruned() throws {
        try start()
        try subscribe("apns://\(Self.apnsBase64)", "alerts")
        try subscribe("gcm://\(Self.fcmToken)", "alerts//")
        try subscribe("gcm://dXk:APA91bLive-token_3", "alerts")
        // The app was removed after the subscription: APNs' timestamp is later than it.
        apns.setOutcome(.unregistered(since: Int64(Date().timeIntervalSince1970 * 1000) + 5_000), forToken: Self.apnsHex)
        fcm.setOutcome(.unregistered, forToken: Self.fcmToken)

        let published = try publish("alerts", #"{"apns": {"aps": {"alert": "x"}}, "fcm": {"data": {"k": "v"}}}"#)
        XCTAssertEqual(published.text, #"{"response":{"content":{"queued":3,"topic":"alerts"}}}"#)
        try waitUntil("both dead tokens pruned") { try self.subscriptions().count == 1 }
        XCTAssertEqual(try subscriptions(), ["\(Self.fcmApp) dXk:APA91bLive-token_3 >alerts"])
        XCTAssertEqual(try pushgate.storedDevices().count, 1)
        // Pruned everywhere: the next publish finds only the live device.
        let again = try publish("alerts", #"{"apns": {"aps": {"alert": "x"}}, "fcm": {"data": {"k": "v"}}}"#)
        XCTAssertEqual(again.text, #"{"response":{"content":{"queued":1,"topic":"alerts"}}}"#)
    }

    func testPublishingNeedsASenderKeyOnceOneExists() throws {
        try start()
        try subscribe("gcm://\(Self.fcmToken)", "a")
        let added = try pushgate.cli(["keys", "add", "backend"])
        XCTAssertEqual(added.status, 0, added.stderr)
        let key = added.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let body = #"{"fcm": {"data": {"k": "v"}}}"#
        let refused = try publish("a", body)
        XCTAssertEqual(refused.status, 401)
        XCTAssertEqual(refused.header("WWW-Authenticate"), #"Bearer realm="pushgate", Basic realm="pushgate""#)
        XCTAssertEqual(refused.text, #"{"response":{"error":"a sender key is required (Authorization: Bearer KEY)"}}"#)
        XCTAssertEqual(try publish("a", body, headers: ["Authorization": "Bearer nope"]).status, 401)
        let allowed = try publish("a", body, headers: ["Authorization": "Bearer \(key)"])
        XCTAssertEqual(allowed.status, 202, allowed.text)
        XCTAssertEqual(allowed.text, #"{"response":{"content":{"queued":1,"topic":"a"}}}"#)
    }

    func testBadPublishesAreRefusedAndQueueNothing() throws {
        try start()
        try subscribe("gcm://\(Self.fcmToken)", "a//")
        let cases: [(target: String, body: String, status: Int, error: String)] = [
            ("/push/topics/a", "{", 400, "body is not valid JSON"),
            ("/push/topics/a", "{}", 400, "apns or fcm is required"),
            ("/push/topics/a", #"{"fcm": {"token": "x"}}"#, 400, "fcm.token is set by the bridge: each subscriber is the target"),
            ("/push/topics/a", #"{"fcm": {"data": {"n": 1}}}"#, 400, "fcm.data.n must be a string"),
            ("/push/topics/a", #"{"apns": [1]}"#, 400, "apns must be a JSON object"),
            ("/push/topics/", #"{"fcm": {}}"#, 400, "name the topic to publish to: POST /push/topics/<topic path>"),
            // nginx would merge the `//`: refused as a path before the topic path is read.
            ("/push/topics/a//b", #"{"fcm": {}}"#, 400, "the path has an empty segment (//)"),
        ]
        for (target, body, status, error) in cases {
            let response = try pushgate.client.post(target, contentType: "application/json", body: body)
            XCTAssertEqual(response.status, status, "\(target) \(body)")
            XCTAssertEqual(errorText(response), error, response.text)
        }
        let get = try pushgate.client.get("/push/topics/a")
        XCTAssertEqual(get.status, 405)
        XCTAssertEqual(get.header("Allow"), "POST")
        let form = try pushgate.client.post("/push/topics/a", contentType: "application/x-www-form-urlencoded", body: "fcm=1")
        XCTAssertEqual(form.status, 415)
        let status = try pushgate.cli(["outbox", "status"])
        XCTAssertTrue(status.stdout.contains("pending: 0"), status.stdout + status.stderr)
        XCTAssertTrue(try pushgate.cli(["outbox", "log"]).stdout.contains("no deliveries logged"), "nothing was queued")
        XCTAssertEqual(fcm.sendRequests.count, 0)
    }
}
