import Foundation
import MockUpstream
import PushTesting
import XCTest

/// The Beams publish API through nginx and `pushgate serve`: interests fan out through the
/// durable outbox to the mock APNs and FCM, each device once.
final class BeamsPublishIntegrationTests: BeamsTestCase {
    static let appKey = "ios-app-key-1"
    static let fcmKey = "android-app-key-1"

    override func setUpWithError() throws {
        try super.setUpWithError()
        try startPushgate()
        try pushgate.addMockAPNsApp(id: "com.example.ios", ["--topic", "com.example.ios", "--app-key", Self.appKey])
        try pushgate.addMockFCMApp(id: "com.example.android", fcm: fcm, ["--app-key", Self.fcmKey])
    }

    static func token(_ n: Int) -> String { String(format: "%064x", n) }

    /// Registers an APNs client (by default) with `token` subscribed to `interests`.
    @discardableResult
    func client(_ token: String, _ interests: [String], key: String = appKey, type: String = "apns") throws -> String {
        try client(key: key, type: type, token: token, interests: interests)
    }

    // MARK: Fan-out

    func testAPublishReachesEachSubscribedDeviceOnce() throws {
        let both = Self.token(1)
        let pizzaOnly = Self.token(2)
        let elsewhere = Self.token(3)
        try client(both, ["donuts", "pizza"])
        try client(pizzaOnly, ["pizza"])
        try client(pizzaOnly, ["donuts"])  // a second install on the same device
        try client(elsewhere, ["other"])

        // The Node SDK's request of the publish API's documentation, as its test sends it.
        let response = try send(
            "POST", "/publish_api/v1/instances/\(Self.appKey)/publishes/interests",
            #"{"interests":["donuts","pizza"],"apns":{"aps":{"alert":"Hi!"}}}"#,
            headers: ["Accept": "application/json"])
        XCTAssertEqual(response.status, 200, response.text)
        XCTAssertEqual(response.header("Content-Type"), "application/json")
        let body = try json(response)
        XCTAssertEqual(Array(body.keys), ["publishId"])
        XCTAssertTrue((body["publishId"] as? String)?.hasPrefix("pubid-") ?? false, response.text)

        XCTAssertTrue(apns.waitForRequests(count: 2), "\(apns.requests.count) requests\n\(pushgate.serveLog)")
        try waitForEmptyOutbox()
        usleep(300_000)  // a third push, were there one, would have arrived by now
        let requests = apns.requests
        XCTAssertEqual(requests.map(\.path).sorted(), ["/3/device/\(both)", "/3/device/\(pizzaOnly)"])
        for request in requests {
            XCTAssertEqual(request.bodyJSON, .object(["aps": .object(["alert": .string("Hi!")])]))
            XCTAssertEqual(request.headers["apns-topic"], "com.example.ios")
            XCTAssertEqual(request.headers["apns-push-type"], "alert")
        }

        // The shorter path of the brief and older SDKs publishes the same way.
        let again = try send(
            "POST", "/publish_api/v1/instances/\(Self.appKey)/publishes",
            #"{"interests":["other"],"apns":{"aps":{"alert":{"title":"T","body":"B"}},"custom":1}}"#)
        XCTAssertEqual(again.status, 200, again.text)
        XCTAssertTrue(apns.waitForRequests(count: 3), pushgate.serveLog)
        let third = try XCTUnwrap(apns.requests.last)
        XCTAssertEqual(third.path, "/3/device/\(elsewhere)")
        XCTAssertEqual(third.bodyJSON?.objectValue?["custom"], .number(1))
    }

    func testAPublishToNobodyStillAnswersAPublishID() throws {
        let response = try send(
            "POST", "/publish_api/v1/instances/\(Self.appKey)/publishes", #"{"interests":["empty"],"apns":{"aps":{}}}"#)
        XCTAssertEqual(response.status, 200, response.text)
        XCTAssertNotNil(try json(response)["publishId"] as? String)
    }

    func testFCMClientsGetTheFCMHalf() throws {
        try client("fcm-token:APA91b_one", ["news"], key: Self.fcmKey, type: "fcm")
        try client("gcm-token:APA91b_two", ["news"], key: Self.fcmKey, type: "gcm")
        let response = try send(
            "POST", "/publish_api/v1/instances/\(Self.fcmKey)/publishes",
            #"{"interests":["news"],"fcm":{"notification":{"title":"Hello!","body":"Hello, world!"},"data":{"k":"v"}},"apns":{"aps":{"alert":"ignored"}}}"#)
        XCTAssertEqual(response.status, 200, response.text)
        try waitForEmptyOutbox()
        let messages = fcm.sendRequests.compactMap { $0.bodyJSON?.objectValue?["message"]?.objectValue }
        XCTAssertEqual(messages.compactMap { $0["token"]?.stringValue }.sorted(), ["fcm-token:APA91b_one", "gcm-token:APA91b_two"])
        for message in messages {
            XCTAssertEqual(
                message["notification"], .object(["title": .string("Hello!"), "body": .string("Hello, world!")]))
            XCTAssertEqual(message["data"], .object(["k": .string("v")]))
        }
    }

    func testDeadTokensFoundDuringFanOutArePrunedEverywhere() throws {
        let alive = Self.token(10)
        let dead = Self.token(11)
        try client(alive, ["news"])
        let deadClient = try client(dead, ["news", "sport"])
        // Apple's 410 timestamp: the token died after the device registered, so it is pruned.
        apns.setOutcome(.unregistered(since: Int64(Date().timeIntervalSince1970 * 1000) + 60_000), forToken: dead)
        let response = try send(
            "POST", "/publish_api/v1/instances/\(Self.appKey)/publishes", #"{"interests":["news"],"apns":{"aps":{"alert":"x"}}}"#)
        XCTAssertEqual(response.status, 200, response.text)
        try waitForEmptyOutbox()
        let devices = try pushgate.storedDevices()
        XCTAssertEqual(devices.map { $0["token"] as? String }, [alive], "\(devices)")
        // The client and its interests went with the device.
        let update = try send(
            "PUT", "/client_api/v1/clients/\(deadClient)/token", #"{"platform_type": "apns", "token": "\#(Self.token(12))"}"#)
        XCTAssertEqual(update.status, 404, update.text)
        XCTAssertEqual(
            try send("POST", "/client_api/v1/clients/\(deadClient)/interests/x", #"{"app_key": "\#(Self.appKey)"}"#).status,
            404)
        // A later publish goes to the live device only.
        apns.log.clear()
        XCTAssertEqual(
            try send("POST", "/publish_api/v1/instances/\(Self.appKey)/publishes", #"{"interests":["sport","news"],"apns":{"aps":{}}}"#).status,
            200)
        try waitForEmptyOutbox()
        XCTAssertEqual(apns.requests.map(\.path), ["/3/device/\(alive)"])
    }

    // MARK: Refusals

    func testBadPublishesAreRefusedInBeamsShapeAndQueueNothing() throws {
        try client(Self.token(20), ["news"])
        let path = "/publish_api/v1/instances/\(Self.appKey)/publishes"
        let good = #"{"interests":["news"],"apns":{"aps":{"alert":"x"}}}"#
        func publish(_ body: String, contentType: String? = "application/json", method: String = "POST") throws
            -> HTTPClient.Response
        {
            var headers: [String: String] = [:]
            if let contentType { headers["Content-Type"] = contentType }
            return try pushgate.client.request(method, path, headers: headers, body: Array(body.utf8))
        }
        try assertBeamsError(try publish(good, contentType: "text/plain"), 400, "Invalid content type", contains: "Only application/json is supported.")
        try assertBeamsError(try publish("{"), 400, "Bad request", contains: "Failed to read body as a JSON object")
        try assertBeamsError(try publish("[]"), 400, "Bad request", contains: "not an object")
        try assertBeamsError(
            try pushgate.client.request(
                "POST", path, headers: ["Content-Type": "application/json"],
                body: Array(#"{"interests":[""#.utf8) + [0xFF] + Array(#""]}"#.utf8)),
            400, "Bad request", contains: "UTF-8")
        let huge = #"{"interests":["news"],"apns":{"aps":{"alert":"\#(String(repeating: "x", count: 11_000))"}}}"#
        try assertBeamsError(try publish(huge), 400, "Bad request", contains: "Request body size is too large (max 10KiB).")
        try assertBeamsError(try publish(#"{"apns":{"aps":{}}}"#), 422, "Unprocessable Entity", contains: "interests is required")
        try assertBeamsError(try publish(#"{"interests":"news","apns":{"aps":{}}}"#), 422, "Unprocessable Entity", contains: "array")
        try assertBeamsError(try publish(#"{"interests":[],"apns":{"aps":{}}}"#), 422, "Unprocessable Entity", contains: "1 to 100")
        let many = (0...100).map { "\"i\($0)\"" }.joined(separator: ",")
        try assertBeamsError(try publish(#"{"interests":[\#(many)],"apns":{"aps":{}}}"#), 422, "Unprocessable Entity", contains: "101")
        try assertBeamsError(try publish(#"{"interests":[7],"apns":{"aps":{}}}"#), 422, "Unprocessable Entity", contains: "strings")
        try assertBeamsError(try publish(#"{"interests":["a b"],"apns":{"aps":{}}}"#), 422, "Unprocessable Entity", contains: "not an interest name")
        try assertBeamsError(
            try publish(#"{"interests":["\#(String(repeating: "a", count: 165))"],"apns":{"aps":{}}}"#), 422,
            "Unprocessable Entity", contains: "164")
        try assertBeamsError(try publish(#"{"interests":["news"]}"#), 422, "Unprocessable Entity", contains: "At least one of apns, fcm or web")
        try assertBeamsError(try publish(#"{"interests":["news"],"web":{"notification":{}}}"#), 422, "Unprocessable Entity")
        try assertBeamsError(try publish(#"{"interests":["news"],"apns":"x"}"#), 422, "Unprocessable Entity", contains: "apns must be an object")
        try assertBeamsError(
            try publish(#"{"interests":["news"],"fcm":{"data":{"n":1}}}"#), 422, "Unprocessable Entity", contains: "fcm.data")
        try assertBeamsError(
            try publish(#"{"interests":["news"],"fcm":{"notification":{}}}"#), 422, "Unprocessable Entity",
            contains: "use APNs")
        let wrongMethod = try publish(good, method: "GET")
        try assertBeamsError(wrongMethod, 405, "Method not allowed")
        XCTAssertEqual(wrongMethod.header("Allow"), "POST")
        try assertBeamsError(
            try send("POST", "/publish_api/v1/instances/unknown-key/publishes", good), 404, "Instance not found",
            contains: "Could not find the instance.")
        // `//` is a path nginx would read differently: refused before routing.
        try assertBeamsError(
            try send("POST", "/publish_api/v1/instances//publishes", good), 400, "Bad request", contains: "empty segment")
        try assertBeamsError(try send("POST", "/publish_api/v1/instances/\(Self.appKey)/other", good), 404, "Not found")
        XCTAssertTrue(try pushgate.cli(["outbox", "status"]).stdout.contains("pending: 0\n"), "nothing queued")
        usleep(300_000)
        XCTAssertEqual(apns.requests.count, 0)
    }

    func testWithSenderKeysAPublishNeedsOne() throws {
        try client(Self.token(30), ["news"])
        let added = try pushgate.cli(["keys", "add", "backend"])
        XCTAssertEqual(added.status, 0, added.stderr)
        let key = added.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let path = "/publish_api/v1/instances/\(Self.appKey)/publishes"
        let body = #"{"interests":["news"],"apns":{"aps":{"alert":"x"}}}"#
        let missing = try send("POST", path, body)
        try assertBeamsError(missing, 401, "Unauthorized", contains: "sender key is required")
        XCTAssertNotNil(missing.header("WWW-Authenticate"))
        try assertBeamsError(
            try send("POST", path, body, headers: ["Authorization": "Bearer wrong"]), 401, "Unauthorized", contains: "not valid")
        // Refused before the instance is looked up: an unknown key learns nothing about apps.
        try assertBeamsError(
            try send("POST", "/publish_api/v1/instances/nope/publishes", body), 401, "Unauthorized")
        usleep(300_000)
        XCTAssertEqual(apns.requests.count, 0)
        let allowed = try send("POST", path, body, headers: ["Authorization": "Bearer \(key)"])
        XCTAssertEqual(allowed.status, 200, allowed.text)
        XCTAssertTrue(apns.waitForRequests(count: 1), pushgate.serveLog)
    }
}
