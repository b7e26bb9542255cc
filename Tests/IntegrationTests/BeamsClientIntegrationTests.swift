import Foundation
import MockUpstream
import PushTesting
import XCTest

/// The Pusher Beams client API through the real nginx and `pushgate serve`, checked through
/// the CLI's device listing.
final class BeamsClientIntegrationTests: XCTestCase {
    static let apnsKey = "ios-app-key-1"
    static let fcmKey = "android-app-key-1"
    static let apnsToken = String(repeating: "00fc13ad", count: 8)
    static let otherAPNsToken = String(repeating: "1de8f0aa", count: 8)

    var fcm: MockFCM!
    var pushgate: PushgateInstance!

    override func setUpWithError() throws {
        fcm = try MockFCM(configuration: MockFCMConfiguration(serviceAccounts: [try .fixture]))
        pushgate = try PushgateInstance(environment: PushgateInstance.upstreams(apns: nil, fcm: fcm))
        try pushgate.start()
        try pushgate.addMockAPNsApp(id: "com.example.ios", ["--app-key", Self.apnsKey])
        try pushgate.addMockFCMApp(id: "com.example.android", fcm: fcm, ["--app-key", Self.fcmKey])
    }

    override func tearDown() {
        pushgate?.stop()
        pushgate = nil
        fcm?.shutdown()
        fcm = nil
    }

    // MARK: Helpers

    func send(_ method: String, _ path: String, _ body: String, contentType: String? = "application/json")
        throws -> HTTPClient.Response
    {
        var headers: [String: String] = [:]
        if let contentType { headers["Content-Type"] = contentType }
        return try pushgate.client.request(method, path, headers: headers, body: Array(body.utf8))
    }

    func json(_ response: HTTPClient.Response) throws -> [String: Any] {
        try XCTUnwrap(JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any], response.text)
    }

    /// Registers a client and returns its id.
    func register(_ token: String = BeamsClientIntegrationTests.apnsToken, key: String = apnsKey, type: String = "apns")
        throws -> String
    {
        let response = try send(
            "POST", "/client_api/v1/clients", #"{"app_key": "\#(key)", "platform_type": "\#(type)", "token": "\#(token)"}"#)
        XCTAssertEqual(response.status, 201, response.text)
        return try XCTUnwrap(json(response)["id"] as? String)
    }

    /// client id → (token as listed, interests), from `pushgate tokens list --json`.
    func clients() throws -> [String: (token: String, interests: [String])] {
        var result: [String: (token: String, interests: [String])] = [:]
        for device in try pushgate.storedDevices() {
            for owner in device["owners"] as? [[String: Any]] ?? [] where owner["kind"] as? String == "beams" {
                let id = owner["client"] as? String ?? ""
                result[id] = (device["token"] as? String ?? "", owner["interests"] as? [String] ?? [])
            }
        }
        return result
    }

    func assertBeamsError(
        _ response: HTTPClient.Response, _ status: Int, _ title: String, contains fragment: String = "",
        file: StaticString = #filePath, line: UInt = #line
    ) throws {
        XCTAssertEqual(response.status, status, response.text, file: file, line: line)
        XCTAssertEqual(response.header("Content-Type"), "application/json", file: file, line: line)
        let body = try json(response)
        XCTAssertEqual(body["error"] as? String, title, response.text, file: file, line: line)
        let description = body["description"] as? String ?? ""
        XCTAssertTrue(fragment.isEmpty || description.contains(fragment), "\(description) lacks \(fragment)", file: file, line: line)
        XCTAssertEqual(body.count, 2, response.text, file: file, line: line)
    }

    // MARK: POST /v1/clients

    func testRegisteringAClientAnswersTheDocumentsRepresentation() throws {
        let response = try send(
            "POST", "/client_api/v1/clients",
            #"{"app_key": "\#(Self.apnsKey)", "platform_type": "apns", "token": "\#(Self.apnsToken)"}"#)
        XCTAssertEqual(response.status, 201, response.text)
        XCTAssertEqual(response.header("Content-Type"), "application/json")
        let body = try json(response)
        XCTAssertEqual(Set(body.keys), ["id", "platform_type", "token"])
        XCTAssertEqual(body["platform_type"] as? String, "apns")
        XCTAssertEqual(body["token"] as? String, Self.apnsToken)
        let id = try XCTUnwrap(body["id"] as? String)
        XCTAssertNotNil(UUID(uuidString: id), id)
        let stored = try clients()
        XCTAssertEqual(stored[id]?.token, Self.apnsToken, "\(stored)")
        XCTAssertEqual(stored[id]?.interests, [])
        // A second registration is a second client (another install), with its own id.
        XCTAssertNotEqual(try register(), id)
    }

    func testTheDocumentsGCMExampleRegistersAsWritten() throws {
        // The document's second client, with its comment removed (JSON has none) and the
        // app_key the POST schema adds; its token is taken as given.
        let response = try send(
            "POST", "/client_api/v1/clients",
            """
            {
              "app_key": "\(Self.fcmKey)",
              "platform_type": "gcm",
              "token": "APAbHB3...IcZbIcg"
            }
            """)
        XCTAssertEqual(response.status, 201, response.text)
        let body = try json(response)
        XCTAssertEqual(body["platform_type"] as? String, "gcm")
        XCTAssertEqual(body["token"] as? String, "APAbHB3...IcZbIcg")
        let id = try XCTUnwrap(body["id"] as? String)
        XCTAssertEqual(try clients()[id]?.token, "APAbHB3...IcZbIcg")
        XCTAssertEqual(try register("fcm-token:APA91b_x", key: Self.fcmKey, type: "fcm").count, 36)
    }

    func testTheDocumentsExamplesVerbatimAreNotJSONAndStoreNothing() throws {
        let examples = [
            // The client representation, comment and elided token as printed.
            """
            {
              "id": "654234",
              "platform_type": "apns",
              "token": "00fc13ad...1de8f0"  // APNs device token
            }
            """,
            // The POST schema as printed.
            """
            {
              "app_key": string,
              "platform_type": either "apns", "fcm", or "gcm"
              "token": string
            }
            """,
        ]
        for example in examples {
            try assertBeamsError(
                try send("POST", "/client_api/v1/clients", example), 400, "Bad request", contains: "not valid JSON")
        }
        // Made into JSON, the APNs example's elided token is still no APNs token.
        try assertBeamsError(
            try send(
                "POST", "/client_api/v1/clients",
                #"{"app_key": "\#(Self.apnsKey)", "platform_type": "apns", "token": "00fc13ad...1de8f0"}"#),
            400, "Bad request", contains: "APNs device token in hex")
        XCTAssertEqual(try pushgate.storedDevices().count, 0)
    }

    func testBadRegistrationsAreRefusedAndStoreNothing() throws {
        let path = "/client_api/v1/clients"
        let good = #"{"app_key": "\#(Self.apnsKey)", "platform_type": "apns", "token": "\#(Self.apnsToken)"}"#
        try assertBeamsError(try send("POST", path, "{"), 400, "Bad request", contains: "not valid JSON")
        try assertBeamsError(try send("POST", path, ""), 400, "Bad request", contains: "empty")
        try assertBeamsError(try send("POST", path, "[1]"), 400, "Bad request", contains: "not an object")
        let invalidUTF8 = Array(#"{"app_key": ""#.utf8) + [0xC3, 0x28] + Array(#"", "platform_type": "apns", "token": "x"}"#.utf8)
        try assertBeamsError(
            try pushgate.client.request("POST", path, headers: ["Content-Type": "application/json"], body: invalidUTF8),
            400, "Bad request", contains: "UTF-8")
        try assertBeamsError(
            try send("POST", path, good, contentType: "application/x-www-form-urlencoded"), 400, "Invalid content type",
            contains: "Only application/json")
        try assertBeamsError(try send("POST", path, good, contentType: nil), 400, "Invalid content type")
        let huge = #"{"app_key": "\#(String(repeating: "k", count: 20_000))", "platform_type": "apns", "token": "x"}"#
        try assertBeamsError(try send("POST", path, huge), 400, "Bad request", contains: "too large")
        try assertBeamsError(
            try send("POST", path, #"{"platform_type": "apns", "token": "\#(Self.apnsToken)"}"#), 400, "Bad request",
            contains: "app_key is required")
        try assertBeamsError(
            try send("POST", path, #"{"app_key": 7, "platform_type": "apns", "token": "\#(Self.apnsToken)"}"#), 400,
            "Bad request", contains: "app_key must be a string")
        try assertBeamsError(
            try send("POST", path, #"{"app_key": "\#(Self.apnsKey)", "platform_type": "web", "token": "abc"}"#), 400,
            "Bad request", contains: "platform_type must be")
        try assertBeamsError(
            try send("POST", path, #"{"app_key": "\#(Self.apnsKey)", "platform_type": "apns"}"#), 400, "Bad request",
            contains: "token is required")
        try assertBeamsError(
            try send("POST", path, #"{"app_key": "\#(Self.apnsKey)", "platform_type": "fcm", "token": "APA91bxyz"}"#),
            400, "Bad request", contains: "This instance has no FCM app: platform_type fcm")
        try assertBeamsError(
            try send("POST", path, #"{"app_key": "\#(Self.fcmKey)", "platform_type": "fcm", "token": "has space s"}"#),
            400, "Bad request", contains: "FCM registration token")
        try assertBeamsError(
            try send("POST", path, #"{"app_key": "nobody", "platform_type": "apns", "token": "\#(Self.apnsToken)"}"#),
            401, "Unauthorized", contains: "app_key")
        let wrongMethod = try send("GET", path, "")
        try assertBeamsError(wrongMethod, 405, "Method not allowed")
        XCTAssertEqual(wrongMethod.header("Allow"), "POST")
        try assertBeamsError(try send("POST", "/client_api/v2/clients", good), 404, "Not found")
        XCTAssertEqual(try pushgate.storedDevices().count, 0)
    }

    // MARK: PUT /v1/clients/:id/token

    static let fcmToken = "eT3xQ9rTSd6:APA91bHun4MxP5egoKMwt2KZFBaFUH-1RYqx"
    static let otherFCMToken = "fQ8yR0sUTe7:APA91bHvo5NyQ6fhpLNxu3LaGCbGVI-2SZry"

    /// An Android client (the old SDK refreshed its token so).
    func registerFCM(_ token: String = BeamsClientIntegrationTests.fcmToken) throws -> String {
        try register(token, key: Self.fcmKey, type: "fcm")
    }

    func testARefreshedTokenReplacesTheOldOne() throws {
        let id = try registerFCM()
        let response = try send(
            "PUT", "/client_api/v1/clients/\(id)/token", #"{"platform_type": "fcm", "token": "\#(Self.otherFCMToken)"}"#)
        XCTAssertEqual(response.status, 200, response.text)
        let body = try json(response)
        XCTAssertEqual(body["id"] as? String, id)
        XCTAssertEqual(body["platform_type"] as? String, "fcm")
        XCTAssertEqual(body["token"] as? String, Self.otherFCMToken)
        // Replaced, not duplicated: the old device row went with its last owner.
        let devices = try pushgate.storedDevices()
        XCTAssertEqual(devices.map { $0["token"] as? String }, [Self.otherFCMToken], "\(devices)")
        XCTAssertEqual(try clients()[id]?.token, Self.otherFCMToken)
    }

    func testARefreshedTokenThatAnotherClientHoldsSharesItsDevice() throws {
        let first = try registerFCM(Self.fcmToken)
        let second = try registerFCM(Self.otherFCMToken)
        let moved = try send(
            "PUT", "/client_api/v1/clients/\(second)/token", #"{"platform_type": "gcm", "token": "\#(Self.fcmToken)"}"#)
        XCTAssertEqual(moved.status, 200, moved.text)
        let devices = try pushgate.storedDevices()
        XCTAssertEqual(devices.count, 1, "\(devices)")
        XCTAssertEqual((devices.first?["owners"] as? [[String: Any]])?.count, 2, "\(devices)")
        let stored = try clients()
        XCTAssertEqual(stored[first]?.token, Self.fcmToken)
        XCTAssertEqual(stored[second]?.token, Self.fcmToken)
    }

    /// An APNs client's token does not move (the old iOS SDK never refreshed it so): its id
    /// is also the device API's, which gives it to whoever registers the token again.
    func testAnAPNsClientsTokenDoesNotMove() throws {
        let id = try register()
        try assertBeamsError(
            try send(
                "PUT", "/client_api/v1/clients/\(id)/token", #"{"platform_type": "apns", "token": "\#(Self.otherAPNsToken)"}"#),
            400, "Bad request", contains: "Only an FCM or GCM client's token is replaced")
        XCTAssertEqual(try clients()[id]?.token, Self.apnsToken)
        XCTAssertEqual(try pushgate.storedDevices().count, 1)
    }

    func testBadTokenUpdatesAreRefusedAndChangeNothing() throws {
        let id = try registerFCM()
        let path = "/client_api/v1/clients/\(id)/token"
        try assertBeamsError(
            try send("PUT", "/client_api/v1/clients/0c7a4b1e-0000-4000-8000-000000000000/token",
                #"{"platform_type": "fcm", "token": "\#(Self.otherFCMToken)"}"#),
            404, "Not found", contains: "Client not found")
        try assertBeamsError(
            try send("PUT", "/client_api/v1/clients/not%20an%20id/token",
                #"{"platform_type": "fcm", "token": "\#(Self.otherFCMToken)"}"#),
            404, "Not found")
        try assertBeamsError(try send("PUT", path, #"{"platform_type": "fcm"}"#), 400, "Bad request", contains: "token is required")
        try assertBeamsError(try send("PUT", path, #"{"token": "\#(Self.otherFCMToken)"}"#), 400, "Bad request", contains: "platform_type is required")
        try assertBeamsError(try send("PUT", path, #"{"platform_type": "apns", "token": "\#(Self.otherAPNsToken)"}"#), 400, "Bad request", contains: "does not match")
        try assertBeamsError(try send("PUT", path, #"{"platform_type": "fcm", "token": "has space"}"#), 400, "Bad request", contains: "FCM registration token")
        try assertBeamsError(try send("PUT", path, #"{"platform_type": "fcm", "token": ["a"]}"#), 400, "Bad request", contains: "must be a string")
        try assertBeamsError(try send("PUT", path, "{nope"), 400, "Bad request")
        try assertBeamsError(try send("PUT", path, "{}", contentType: "text/plain"), 400, "Invalid content type")
        let wrongMethod = try send("POST", path, #"{"platform_type": "fcm", "token": "\#(Self.otherFCMToken)"}"#)
        try assertBeamsError(wrongMethod, 405, "Method not allowed")
        XCTAssertEqual(wrongMethod.header("Allow"), "PUT")
        XCTAssertEqual(try clients()[id]?.token, Self.fcmToken)
        XCTAssertEqual(try pushgate.storedDevices().count, 1)
    }

    // MARK: /v1/clients/:id/interests/:interest_name

    func testSubscribingAndUnsubscribingIsIdempotent() throws {
        let id = try register()
        let body = #"{"app_key": "\#(Self.apnsKey)"}"#
        let longest = String(repeating: "a", count: 163) + ";"
        for name in ["donuts", "donuts", "A_z=0@1,2.3;", longest] {
            let response = try send("POST", "/client_api/v1/clients/\(id)/interests/\(name)", body)
            XCTAssertEqual(response.status, 200, response.text)
            XCTAssertEqual(response.body, [])
        }
        XCTAssertEqual(try clients()[id]?.interests, ["A_z=0@1,2.3;", "donuts", longest].sorted())
        // Percent-encoded characters are the same name.
        XCTAssertEqual(try send("DELETE", "/client_api/v1/clients/\(id)/interests/A_z%3D0%401%2C2.3%3B", body).status, 200)
        XCTAssertEqual(try send("DELETE", "/client_api/v1/clients/\(id)/interests/donuts", body).status, 200)
        XCTAssertEqual(try send("DELETE", "/client_api/v1/clients/\(id)/interests/donuts", body).status, 200)
        XCTAssertEqual(try clients()[id]?.interests, [longest])
    }

    func testBadSubscriptionsAreRefusedAndChangeNothing() throws {
        let id = try register()
        let other = try register("fcm-token:APA91b_y", key: Self.fcmKey, type: "fcm")
        let body = #"{"app_key": "\#(Self.apnsKey)"}"#
        let base = "/client_api/v1/clients/\(id)/interests"
        try assertBeamsError(try send("POST", "\(base)/private-room", body), 400, "Bad request", contains: "interest name")
        try assertBeamsError(try send("POST", "\(base)/\(String(repeating: "a", count: 165))", body), 400, "Bad request", contains: "164")
        try assertBeamsError(try send("POST", "\(base)/caf%C3%A9", body), 400, "Bad request", contains: "interest name")
        // (A malformed percent-escape never gets here: nginx refuses the request line. The
        // handler's own refusal is a unit test.)
        try assertBeamsError(try send("POST", "\(base)/a%20b", body), 400, "Bad request")
        try assertBeamsError(try send("POST", "\(base)/donuts", #"{"app_key": "\#(Self.fcmKey)"}"#), 401, "Unauthorized")
        try assertBeamsError(try send("POST", "/client_api/v1/clients/\(other)/interests/donuts", body), 401, "Unauthorized")
        try assertBeamsError(try send("DELETE", "\(base)/donuts", #"{"app_key": "nobody"}"#), 401, "Unauthorized")
        try assertBeamsError(
            try send("POST", "/client_api/v1/clients/0c7a4b1e-0000-4000-8000-000000000000/interests/donuts", body), 404,
            "Not found", contains: "Client not found")
        try assertBeamsError(try send("POST", "\(base)/donuts", "{}"), 400, "Bad request", contains: "app_key is required")
        // The document's example as printed (its trailing comma makes it no JSON).
        try assertBeamsError(try send("POST", "\(base)/donuts", "{\n  \"app_key\": string,\n}"), 400, "Bad request")
        try assertBeamsError(try send("POST", "\(base)/donuts", body, contentType: "text/plain"), 400, "Invalid content type")
        let wrongMethod = try send("PUT", "\(base)/donuts", body)
        try assertBeamsError(wrongMethod, 405, "Method not allowed")
        XCTAssertEqual(wrongMethod.header("Allow"), "POST, DELETE")
        try assertBeamsError(try send("POST", "\(base)/donuts/extra", body), 404, "Not found")
        XCTAssertEqual(try clients()[id]?.interests, [])
        XCTAssertEqual(try clients()[other]?.interests, [])
    }
}
