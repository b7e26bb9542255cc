import Foundation
import MockUpstream
import PushTesting
import XCTest

/// One Beams instance (app key) for a product's iOS and Android apps, through nginx and
/// `pushgate serve`: clients of both platforms register under the one key, and one publish
/// sends its `apns` half to the mock APNs and its `fcm` half to the mock FCM.
final class BeamsInstanceIntegrationTests: BeamsTestCase, RunsOnPostgreSQL {
    static let key = "product-instance-1"
    static let iosOnlyKey = "ios-only-instance"
    static let iosApp = "com.example.product.ios"
    static let androidApp = "com.example.product.android"

    override func setUpWithError() throws {
        try super.setUpWithError()
        try startPushgate()
        // The operator's set-up: `--app-key K` on the APNs app and on the FCM app.
        try pushgate.addMockAPNsApp(id: Self.iosApp, ["--topic", Self.iosApp, "--app-key", Self.key])
        try pushgate.addMockFCMApp(id: Self.androidApp, fcm: fcm, ["--app-key", Self.key])
        try pushgate.addMockAPNsApp(id: "com.example.other.ios", ["--app-key", Self.iosOnlyKey])
    }

    // MARK: Helpers

    static func apnsToken(_ n: Int) -> String { String(format: "%064x", n) }

    /// Registers a client of `type` under `key` and subscribes it to `interests`.
    @discardableResult
    func client(_ type: String, _ token: String, _ interests: [String], key: String = key) throws -> String {
        try client(key: key, type: type, token: token, interests: interests)
    }

    /// app id of each stored device, by its token text.
    func storedApps() throws -> [String: String] {
        var apps: [String: String] = [:]
        for device in try pushgate.storedDevices() {
            apps[device["token"] as? String ?? ""] = device["app_id"] as? String
        }
        return apps
    }

    // MARK: Both platforms under one key

    func testClientsOfBothPlatformsRegisterUnderOneKeyAndOnePublishReachesEach() throws {
        let iPhone = Self.apnsToken(1)
        let iPad = Self.apnsToken(2)
        let pixel = "dTk3x9:APA91bHun4MxP5egoKMwt2KZFBaFUH-1RYqx_pixel"
        let galaxy = "cA8y2w:APA91bGalaxy-token_2"
        try client("apns", iPhone, ["donuts", "pizza"])
        try client("apns", iPad, ["pizza"])
        try client("apns", iPad, ["donuts"])  // a second install on the same iPad
        try client("fcm", pixel, ["donuts", "pizza"])
        try client("gcm", galaxy, ["pizza"])
        try client("fcm", galaxy, ["donuts"])  // the same phone as an fcm client
        try client("apns", Self.apnsToken(3), ["other"])
        try client("fcm", "zz:APA91b_elsewhere", ["other"])

        // Each device under its platform's app of the instance.
        XCTAssertEqual(
            try storedApps(),
            [
                iPhone: Self.iosApp, iPad: Self.iosApp, Self.apnsToken(3): Self.iosApp, pixel: Self.androidApp,
                galaxy: Self.androidApp, "zz:APA91b_elsewhere": Self.androidApp,
            ])

        let response = try send(
            "POST", "/publish_api/v1/instances/\(Self.key)/publishes/interests",
            #"{"interests":["donuts","pizza"],"apns":{"aps":{"alert":"Hi iOS"}},"fcm":{"notification":{"title":"Hi Android"},"data":{"k":"v"}}}"#)
        XCTAssertEqual(response.status, 200, response.text)
        XCTAssertTrue((try json(response)["publishId"] as? String)?.hasPrefix("pubid-") ?? false, response.text)
        try waitForEmptyOutbox()

        // The apns half to each subscribed iOS device once, the fcm half to each Android one once.
        let apnsRequests = apns.requests
        XCTAssertEqual(apnsRequests.map(\.path).sorted(), ["/3/device/\(iPhone)", "/3/device/\(iPad)"].sorted())
        for request in apnsRequests {
            XCTAssertEqual(request.bodyJSON, .object(["aps": .object(["alert": .string("Hi iOS")])]))
            XCTAssertEqual(request.headers["apns-topic"], Self.iosApp)
        }
        let messages = fcm.sendRequests.compactMap { $0.bodyJSON?.objectValue?["message"]?.objectValue }
        XCTAssertEqual(messages.compactMap { $0["token"]?.stringValue }.sorted(), [galaxy, pixel].sorted())
        for message in messages {
            XCTAssertEqual(message["notification"], .object(["title": .string("Hi Android")]))
            XCTAssertEqual(message["data"], .object(["k": .string("v")]))
            XCTAssertNil(message["aps"])
        }
        XCTAssertTrue(try pushgate.cli(["outbox", "status"]).stdout.contains("dead letters: 0\n"), "no half was missing")
    }

    func testAPublishWithOneHalfReachesThatPlatformOnly() throws {
        try client("apns", Self.apnsToken(5), ["news"])
        try client("fcm", "aa:APA91b_news", ["news"])
        let response = try send(
            "POST", "/publish_api/v1/instances/\(Self.key)/publishes", #"{"interests":["news"],"fcm":{"data":{"k":"v"}}}"#)
        XCTAssertEqual(response.status, 200, response.text)
        try waitForEmptyOutbox()
        XCTAssertEqual(fcm.sendRequests.compactMap { $0.bodyJSON?.objectValue?["message"]?.objectValue?["token"]?.stringValue }, ["aa:APA91b_news"])
        XCTAssertEqual(apns.requests.count, 0, "the iPhone has no half to get")
        let status = try pushgate.cli(["outbox", "status"]).stdout
        XCTAssertTrue(status.contains("dead letters: 0\n"), status)
    }

    func testAClientsInterestsAreCheckedAgainstTheSharedKey() throws {
        let android = try client("fcm", "bb:APA91b_interest", [])
        XCTAssertEqual(
            try send("POST", "/client_api/v1/clients/\(android)/interests/news", #"{"app_key": "\#(Self.key)"}"#).status, 200)
        try assertBeamsError(
            try send("POST", "/client_api/v1/clients/\(android)/interests/news", #"{"app_key": "\#(Self.iosOnlyKey)"}"#),
            401, "Unauthorized", contains: "app_key")
        // A refreshed token stays in the client's platform.
        try assertBeamsError(
            try send("PUT", "/client_api/v1/clients/\(android)/token", #"{"platform_type": "apns", "token": "\#(Self.apnsToken(9))"}"#),
            400, "Bad request", contains: "registered as FCM")
        let refreshed = try send(
            "PUT", "/client_api/v1/clients/\(android)/token", #"{"platform_type": "gcm", "token": "bb:APA91b_refreshed"}"#)
        XCTAssertEqual(refreshed.status, 200, refreshed.text)
        XCTAssertEqual(try storedApps(), ["bb:APA91b_refreshed": Self.androidApp])
    }

    // MARK: Refusals

    func testAPlatformWithNoAppBehindTheKeyIsRefusedInBeamsShape() throws {
        for type in ["fcm", "gcm"] {
            try assertBeamsError(
                try send(
                    "POST", "/client_api/v1/clients",
                    #"{"app_key": "\#(Self.iosOnlyKey)", "platform_type": "\#(type)", "token": "cc:APA91b_nowhere"}"#),
                400, "Bad request", contains: "This instance has no FCM app: platform_type \(type) cannot register")
        }
        XCTAssertEqual(try pushgate.storedDevices().count, 0)
        // Once an FCM app joins the key, the same registration is stored under it.
        try pushgate.addMockFCMApp(id: "com.example.other.android", fcm: fcm, ["--app-key", Self.iosOnlyKey])
        try client("fcm", "cc:APA91b_nowhere", [], key: Self.iosOnlyKey)
        XCTAssertEqual(try storedApps(), ["cc:APA91b_nowhere": "com.example.other.android"])
    }

    func testBadInterestListsAre422WithADescriptionAndQueueNothing() throws {
        try client("apns", Self.apnsToken(7), ["news"])
        try client("fcm", "dd:APA91b_news", ["news"])
        let path = "/publish_api/v1/instances/\(Self.key)/publishes"
        let many = (0...100).map { #""i\#($0)""# }.joined(separator: ",")
        let cases: [(interests: String, fragment: String)] = [
            (#"["news","private:news"]"#, #"interests[1] "private:news" is not an interest name: ':' is not allowed"#),
            (#"["news",""]"#, #"interests[1] "" is not an interest name: it is empty"#),
            (#"["news","\#(String(repeating: "n", count: 165))"]"#, "it has 165 characters, over the limit of 164"),
            (#"[]"#, "interests must name 1 to 100 interests; it names 0"),
            ("[\(many)]", "interests must name 1 to 100 interests; it names 101"),
            (#"["news",7]"#, "interests must be an array of strings; interests[1] is not a string"),
            (#"["news",null]"#, "interests[1] is not a string"),
            (#""news""#, "interests must be an array of strings"),
            (#"["news","a\u0000b"]"#, "U+0000 is not allowed"),
            (#"["news","a\nb"]"#, "U+000A is not allowed"),
        ]
        for (interests, fragment) in cases {
            let body = #"{"interests":\#(interests),"apns":{"aps":{"alert":"x"}},"fcm":{"data":{"k":"v"}}}"#
            try assertBeamsError(try send("POST", path, body), 422, "Unprocessable Entity", contains: fragment)
        }
        // The Beams 422 goes out with its reason phrase.
        let refused = try pushgate.client.send(
            Array(
                "POST \(path) HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 15\r\nConnection: close\r\n\r\n{\"interests\":0}"
                    .utf8))
        XCTAssertEqual(refused.status, 422)
        XCTAssertEqual(refused.statusLine, "HTTP/1.1 422 Unprocessable Entity")

        let status = try pushgate.cli(["outbox", "status"]).stdout
        XCTAssertTrue(status.contains("pending: 0\n"), status)
        XCTAssertTrue(status.contains("dead letters: 0\n"), status)
        // A good publish afterwards is the first thing either mock receives.
        let good = try send("POST", path, #"{"interests":["news"],"apns":{"aps":{"alert":"x"}},"fcm":{"data":{"k":"v"}}}"#)
        XCTAssertEqual(good.status, 200, good.text)
        try waitForEmptyOutbox()
        XCTAssertEqual(apns.requests.count, 1)
        XCTAssertEqual(fcm.sendRequests.count, 1)
    }
}
