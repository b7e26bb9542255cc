import PushAPI
import PushCore
import PushTesting
import XCTest

final class NotificationBridgeTests: XCTestCase {
    static let apnsBytes = (0..<32).map { UInt8($0 * 7 & 0xFF) }
    static let apnsDestination = "apns://" + Base64.encode(apnsBytes)
    static let gcmDestination = "gcm://dXk:APA91bTest-token_1"

    let apps = InMemoryTokenStore()
    let store = FakeBridgeStore()
    var bridgeApps = BridgeApps(apns: "com.example.ios", fcm: "com.example.android")

    override func setUpWithError() throws {
        try apps.addApp(
            RegisteredApp(
                id: AppID("com.example.ios")!, credentials: .apnsToken(teamID: "T", keyID: "K", privateKeyPEM: "P")),
            replacing: false)
        try apps.addApp(
            RegisteredApp(
                id: AppID("com.example.android")!, credentials: .fcmServiceAccount(json: "{}", projectID: "p")),
            replacing: false)
    }

    var bridge: RouteGroup {
        RouteGroup(
            errors: BridgeErrors(), NotificationBridge(apps: apps, subscriptions: store, bridgeApps: bridgeApps).routes)
    }

    func post(_ body: String, contentType: String? = "application/json", method: String = "POST") -> Response {
        var headers: [String: String] = [:]
        if let contentType { headers["content-type"] = contentType }
        return bridge.handle(Request(method: method, path: "/push/notifications", headers: headers, body: Array(body.utf8)))
    }

    func json(_ response: Response) -> JSONValue? { try? JSONValue.parse(response.body) }

    func error(_ response: Response) -> String? {
        json(response)?.objectValue?["response"]?.objectValue?["error"]?.stringValue
    }

    func testSubscribeStoresTheCanonicalSelectorAndEchoesTheRequest() throws {
        let response = post(#"{"pnsub": {"destination": "\#(Self.apnsDestination)", "topic": "news/sport//"}}"#)
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.header("Content-Type"), "application/json")
        XCTAssertEqual(
            json(response),
            .object([
                "response": .object([
                    "content": .object([
                        "pnsub": .object([
                            "destination": .string(Self.apnsDestination), "topic": .string("news/sport//"),
                        ])
                    ])
                ])
            ]))
        XCTAssertEqual(
            store.links,
            [.init(appID: AppID("com.example.ios")!, token: DeviceToken(bytes: Self.apnsBytes), selector: ">news/sport//")])
    }

    func testUnsubscribeAcceptsAnySpellingOfTheSelector() {
        XCTAssertEqual(post(#"{"pnsub": {"destination": "\#(Self.gcmDestination)", "topic": ">a/b"}}"#).status, 200)
        XCTAssertEqual(store.links.count, 1)
        let response = post(#"{"pnunsub": {"destination": "\#(Self.gcmDestination)", "topic": "a/b"}}"#)
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(
            json(response)?.objectValue?["response"]?.objectValue?["content"]?.objectValue?["pnunsub"]?.objectValue?[
                "topic"], .string("a/b"))
        XCTAssertEqual(store.links, [])
        // Again: already gone is the state the client asked for.
        XCTAssertEqual(post(#"{"pnunsub": {"destination": "\#(Self.gcmDestination)", "topic": "a/b"}}"#).status, 200)
    }

    func testTheWrappedFormEchoesTheCorrelation() {
        let body = #"{"request": {"correlation": "8d3c2f4e-6a1b-4c5d-9e7f-0a1b2c3d4e5f", "content": {"pnsub": {"destination": "\#(Self.gcmDestination)", "topic": "a"}}}}"#
        let response = post(body)
        XCTAssertEqual(response.status, 200)
        let inner = json(response)?.objectValue?["response"]?.objectValue
        XCTAssertEqual(inner?["correlation"], .string("8d3c2f4e-6a1b-4c5d-9e7f-0a1b2c3d4e5f"))
        XCTAssertNotNil(inner?["content"]?.objectValue?["pnsub"])
        // Errors of a wrapped request carry its correlation too.
        let refused = post(#"{"request": {"correlation": "c-1", "content": {"pnsub": {"destination": "x://y", "topic": "a"}}}}"#)
        XCTAssertEqual(refused.status, 400)
        XCTAssertEqual(json(refused)?.objectValue?["response"]?.objectValue?["correlation"], .string("c-1"))
        XCTAssertEqual(error(refused), "destination must be an apns:// or gcm:// URI")
    }

    func testEveryBadInputGetsTheErrorShapeAndStoresNothing() {
        let cases: [(body: String, status: Int, message: String)] = [
            ("{", 400, "body is not valid JSON"),
            ("[]", 400, "the body must be a JSON object"),
            ("{}", 400, "the message holds neither pnsub nor pnunsub"),
            (#"{"pnsub": {"destination": "\#(Self.gcmDestination)", "topic": "a"}, "pnunsub": {"destination": "\#(Self.gcmDestination)", "topic": "a"}}"#, 400, "a message holds either pnsub or pnunsub, not both"),
            (#"{"pnsub": "x"}"#, 400, "pnsub must be a JSON object"),
            (#"{"pnsub": {"topic": "a"}}"#, 400, "pnsub.destination is required"),
            (#"{"pnsub": {"destination": "\#(Self.gcmDestination)"}}"#, 400, "pnsub.topic is required"),
            (#"{"pnsub": {"destination": 5, "topic": "a"}}"#, 400, "pnsub.destination must be a string"),
            (#"{"pnsub": {"destination": "\#(Self.gcmDestination)", "topic": ["a"]}}"#, 400, "pnsub.topic must be a string"),
            (#"{"pnsub": {"destination": "\#(Self.gcmDestination)", "topic": ""}}"#, 400, "pnsub.topic is required"),
            (#"{"pnsub": {"destination": "\#(Self.gcmDestination)", "topic": "a", "extra": 1}}"#, 400, "unknown field pnsub.extra"),
            (#"{"pnsubs": {}}"#, 400, "unknown field pnsubs"),
            (#"{"pnsub": {"destination": "apns://AAAA", "topic": "a"}}"#, 400, "destination apns:// must be followed by the base64 of an APNs device token (32 bytes or more)"),
            (#"{"pnsub": {"destination": "apns://!!!", "topic": "a"}}"#, 400, "destination apns:// must be followed by the base64 of an APNs device token (32 bytes or more)"),
            (#"{"pnsub": {"destination": "gcm://has space", "topic": "a"}}"#, 400, "destination gcm:// must be followed by an FCM registration token (printable text, no spaces)"),
            // Control characters, which FCM would refuse at every push, are refused here.
            (#"{"pnsub": {"destination": "gcm://dXk:APA91b\u0000x", "topic": "a"}}"#, 400, "destination gcm:// must be followed by an FCM registration token (printable text, no spaces)"),
            (#"{"pnsub": {"destination": "gcm://dXk:APA91b\nx", "topic": "a"}}"#, 400, "destination gcm:// must be followed by an FCM registration token (printable text, no spaces)"),
            (#"{"pnsub": {"destination": "gcm://dXk:APA91b\u007fx", "topic": "a"}}"#, 400, "destination gcm:// must be followed by an FCM registration token (printable text, no spaces)"),
            (#"{"pnsub": {"destination": "gcm://", "topic": "a"}}"#, 400, "destination must be an apns:// or gcm:// URI"),
            (#"{"pnsub": {"destination": "\#(Self.gcmDestination)", "topic": "?a/.*"}}"#, 400, "topic selector ?a/.* is a regular expression pattern; this bridge serves path selectors only (>path, >path/ for descendants, >path// for the path and its descendants)"),
            (#"{"request": {"content": "x"}}"#, 400, "request.content must be a JSON object"),
            (#"{"request": {"correlation": 7, "content": {}}}"#, 400, "request.correlation must be a non-empty string of at most 200 bytes"),
            (#"{"request": {"correlation": "c"}}"#, 400, "request.content is required"),
        ]
        for (body, status, message) in cases {
            let response = post(body)
            XCTAssertEqual(response.status, status, body)
            XCTAssertEqual(error(response), message, body)
        }
        XCTAssertEqual(store.links, [])
    }

    func testTransportRefusals() {
        let valid = #"{"pnsub": {"destination": "\#(Self.gcmDestination)", "topic": "a"}}"#
        let get = post(valid, method: "GET")
        XCTAssertEqual(get.status, 405)
        XCTAssertEqual(get.header("Allow"), "POST")
        XCTAssertEqual(error(get), "method GET not allowed: use POST")
        let form = post(valid, contentType: "application/x-www-form-urlencoded")
        XCTAssertEqual(form.status, 415)
        XCTAssertEqual(error(form), "unsupported content type application/x-www-form-urlencoded: use application/json")
        let huge = post(#"{"pnsub": {"destination": "\#(Self.gcmDestination)", "topic": "\#(String(repeating: "a", count: 20_000))"}}"#)
        XCTAssertEqual(huge.status, 413)
        var invalid = Array(valid.utf8)
        invalid.insert(0xFF, at: invalid.count - 3)
        let notUTF8 = bridge.handle(
            Request(method: "POST", path: "/push/notifications", headers: ["content-type": "application/json"], body: invalid))
        XCTAssertEqual(notUTF8.status, 400)
        XCTAssertEqual(error(notUTF8), "body is not valid UTF-8")
        let elsewhere = bridge.handle(Request(method: "POST", path: "/push/notifications/x"))
        XCTAssertEqual(elsewhere.status, 404)
        XCTAssertEqual(post(valid, contentType: nil).status, 200, "no content type is read as JSON")
        XCTAssertEqual(post(valid, contentType: "application/json; charset=utf-8").status, 200)
    }

    func testAnUnconfiguredPlatformTellsTheClientAndTheLogWhichKey() throws {
        bridgeApps = BridgeApps(apns: nil, fcm: "com.example.missing")
        let apns = post(#"{"pnsub": {"destination": "\#(Self.apnsDestination)", "topic": "a"}}"#)
        XCTAssertEqual(apns.status, 503)
        XCTAssertEqual(error(apns), "this bridge does not serve apns:// destinations")
        XCTAssertTrue(apns.logNote?.contains("PUSHGATE_BRIDGE_APNS_APP is not set") == true, apns.logNote ?? "")
        let fcm = post(#"{"pnsub": {"destination": "\#(Self.gcmDestination)", "topic": "a"}}"#)
        XCTAssertEqual(fcm.status, 503)
        XCTAssertTrue(fcm.logNote?.contains("PUSHGATE_BRIDGE_FCM_APP names com.example.missing, which is not registered") == true, fcm.logNote ?? "")
        bridgeApps = BridgeApps(apns: "com.example.android", fcm: nil)
        let crossed = post(#"{"pnsub": {"destination": "\#(Self.apnsDestination)", "topic": "a"}}"#)
        XCTAssertTrue(crossed.logNote?.contains("a fcm app, not apns") == true, crossed.logNote ?? "")
        XCTAssertEqual(store.links, [])
    }

    func testAStoreFailureIsA500InTheErrorShape() {
        store.failing = true
        let response = post(#"{"request": {"correlation": "c", "content": {"pnsub": {"destination": "\#(Self.gcmDestination)", "topic": "a"}}}}"#)
        XCTAssertEqual(response.status, 500)
        XCTAssertEqual(error(response), "internal error")
        XCTAssertEqual(json(response)?.objectValue?["response"]?.objectValue?["correlation"], .string("c"))
        XCTAssertNotNil(response.logNote)
    }
}

final class TopicPublisherTests: XCTestCase {
    let store = FakeBridgeStore()
    let keys = InMemorySenderKeys()
    let ios = AppID("com.example.ios")!
    let android = AppID("com.example.android")!
    final class Wakes: @unchecked Sendable { var count = 0 }
    let wakes = Wakes()
    let bridgeApps = BridgeApps(apns: "com.example.ios", fcm: "com.example.android")

    var publisher: RouteGroup {
        let wakes = self.wakes
        let publisher = SenderOnly(
            TopicPublisher(subscriptions: store, bridgeApps: bridgeApps, queued: { wakes.count += 1 }),
            senders: SenderAuthorization(keys: keys, digest: { $0 }))
        return RouteGroup(errors: BridgeErrors(), publisher.routes)
    }

    override func setUp() {
        store.platforms = [ios: .apns, android: .fcm]
        store.links = [
            .init(appID: ios, token: DeviceToken(bytes: [1]), selector: ">news//"),
            .init(appID: ios, token: DeviceToken(bytes: [2]), selector: ">news/sport"),
            .init(appID: ios, token: DeviceToken(bytes: [2]), selector: ">news/"),
            .init(appID: android, token: DeviceToken(bytes: [3]), selector: ">news/sport/"),
            .init(appID: android, token: DeviceToken(bytes: [4]), selector: ">weather"),
        ]
    }

    func publish(
        _ target: String, _ body: String, method: String = "POST", headers: [String: String] = [:],
        from address: String = "127.0.0.1"
    ) -> Response {
        var all = ["content-type": "application/json"]
        for (name, value) in headers { all[name] = value }
        return publisher.handle(
            Request(method: method, path: target, headers: all, body: Array(body.utf8), remoteAddress: address))
    }

    func json(_ response: Response) -> [String: JSONValue]? {
        (try? JSONValue.parse(response.body))?.objectValue?["response"]?.objectValue
    }

    func testAPublishQueuesEachMatchingDeviceOnceWithItsPlatformsHalf() throws {
        let response = publish(
            "/push/topics/news/sport", #"{"apns": {"aps": {"alert": "Goal"}}, "fcm": {"data": {"score": "1-0"}}}"#)
        XCTAssertEqual(response.status, 202)
        XCTAssertEqual(json(response)?["content"], .object(["topic": .string("news/sport"), "queued": .number(2)]))
        let queued = try XCTUnwrap(store.queued.first)
        XCTAssertEqual(queued.tokens, [DeviceToken(bytes: [1]), DeviceToken(bytes: [2])], "token 2 matches twice, queued once; 3 wants descendants only")
        XCTAssertEqual(queued.message.source, "bridge:topic")
        XCTAssertEqual(queued.message.apns?.payload, Array(#"{"aps":{"alert":"Goal"}}"#.utf8))
        XCTAssertEqual(queued.message.fcm?.fields, ["data": .object(["score": .string("1-0")])])
        XCTAssertEqual(wakes.count, 1)

        let deeper = publish("/push/topics/news/sport/live", #"{"fcm": {"notification": {"title": "t"}}}"#)
        XCTAssertEqual(json(deeper)?["content"]?.objectValue?["queued"], .number(1), "APNs devices get nothing without an apns half")
        XCTAssertEqual(store.queued.last?.tokens, [DeviceToken(bytes: [3])])
        let nobody = publish("/push/topics/sports", #"{"apns": {"aps": {}}}"#)
        XCTAssertEqual(json(nobody)?["content"], .object(["topic": .string("sports"), "queued": .number(0)]))
        XCTAssertEqual(wakes.count, 2, "nothing queued, nothing to wake")
        XCTAssertEqual(
            json(publish("/push/topics/%6Eews/sport", #"{"apns": {"aps": {}}}"#))?["content"]?.objectValue?["topic"],
            .string("news/sport"), "a percent-encoded spelling names the same topic")
    }

    func testBadPublishesAreRefusedInTheErrorShape() {
        let cases: [(target: String, body: String, status: Int, message: String)] = [
            ("/push/topics/a", "{", 400, "body is not valid JSON"),
            ("/push/topics/a", "{}", 400, "apns or fcm is required"),
            ("/push/topics/a", #"{"apns": null, "fcm": null}"#, 400, "apns or fcm is required"),
            ("/push/topics/a", #"{"apns": "x"}"#, 400, "apns must be a JSON object"),
            ("/push/topics/a", #"{"fcm": []}"#, 400, "fcm must be a JSON object"),
            ("/push/topics/a", #"{"fcm": {"token": "x"}}"#, 400, "fcm.token is set by the bridge: each subscriber is the target"),
            ("/push/topics/a", #"{"fcm": {"data": {"n": 1}}}"#, 400, "fcm.data.n must be a string"),
            ("/push/topics/a", #"{"apns": {}, "gcm": {}}"#, 400, "unknown field gcm"),
            ("/push/topics/a", #"{"apns": {"aps": {"alert": "\#(String(repeating: "x", count: 5200))"}}}"#, 400, "apns is 5220 bytes: APNs takes at most 5120"),
            ("/push/topics", #"{"apns": {}}"#, 400, "name the topic to publish to: POST /push/topics/<topic path>"),
            ("/push/topics/", #"{"apns": {}}"#, 400, "name the topic to publish to: POST /push/topics/<topic path>"),
            // Refused before the publisher reads it: nginx would merge the slashes.
            ("/push/topics/a//b", #"{"apns": {}}"#, 400, "the path has an empty segment (//)"),
            ("/push/topics/a/", #"{"apns": {}}"#, 400, "the topic path a/ has an empty part"),
            ("/push/topics/a%zz", #"{"apns": {}}"#, 400, "the topic path has malformed percent-encoding"),
            ("/push/topics/a", String(repeating: " ", count: 70_000), 413, "request body is larger than 65536 bytes"),
        ]
        for (target, body, status, message) in cases {
            let response = publish(target, body)
            XCTAssertEqual(response.status, status, "\(target) \(body.prefix(80))")
            XCTAssertEqual(json(response)?["error"], .string(message), "\(target) \(body.prefix(80))")
        }
        let get = publish("/push/topics/a", "", method: "GET")
        XCTAssertEqual(get.status, 405)
        XCTAssertEqual(get.header("Allow"), "POST")
        XCTAssertEqual(publish("/push/topics/a", "{}", headers: ["content-type": "text/plain"]).status, 415)
        XCTAssertTrue(store.queued.isEmpty)
        XCTAssertEqual(wakes.count, 0)
    }

    func testSenderAuthorizationInTheErrorShape() {
        let body = #"{"apns": {"aps": {}}}"#
        let remote = publish("/push/topics/news", body, from: "192.0.2.1")
        XCTAssertEqual(remote.status, 403)
        XCTAssertTrue(json(remote)?["error"]?.stringValue?.contains("keys add") == true)
        keys.valid = ["secret": "backend"]
        let missing = publish("/push/topics/news", body)
        XCTAssertEqual(missing.status, 401)
        XCTAssertEqual(missing.header("WWW-Authenticate"), SenderAuthorization.challenge)
        XCTAssertEqual(json(missing)?["error"], .string("a sender key is required (Authorization: Bearer KEY)"))
        XCTAssertEqual(publish("/push/topics/news", body, headers: ["authorization": "Bearer wrong"]).status, 401)
        XCTAssertEqual(publish("/push/topics/news", body, headers: ["authorization": "Bearer secret"]).status, 202)
        XCTAssertEqual(store.queued.count, 1)
    }
}
