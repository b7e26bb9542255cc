import Foundation
import MockUpstream
import PushCore
import PushTesting
import XCTest

/// Every dialect that stores or takes a Web Push subscription refuses, with 400 in its own
/// shape and nothing stored or sent, a subscription pushgate could never push to: an endpoint
/// off the allow-list or at an internal address, a `p256dh` that is no point on P-256, an
/// `auth` that is not 16 bytes. Through the real nginx and `serve`, on both engines.
final class WebPushRegistrationIntegrationTests: MockWebPushTestCase, RunsOnPostgreSQL {
    static let app = "com.example.softphone.web"
    static let instance = "0e5c1d4a-7f3b-4f7e-9a41-2c8d5b6e7f10"
    static let selector = "web-account-00000000000"

    override func setUpWithError() throws {
        try super.setUpWithError()
        try pushgate.addWebApp(id: Self.app, ["--app-key", Self.instance])
    }

    /// Subscriptions no dialect may keep, each with the words its refusal must carry. All but
    /// the keys are the mock's own, so each one differs from a good subscription in one thing.
    private func unusable() throws -> [(name: String, json: String, reason: String)] {
        let good = try push.createSubscription()
        func with(endpoint: String? = nil, p256dh: [UInt8]? = nil, auth: [UInt8]? = nil) -> String {
            MockWebPushSubscription(
                id: good.id, endpoint: endpoint ?? good.endpoint, p256dh: p256dh ?? good.p256dh, auth: auth ?? good.auth
            ).json
        }
        // x = y = 1 is no point on P-256 (1 ≠ 1 - 3 + b mod p), though it is 65 bytes with 0x04.
        let offCurve = [0x04] + [UInt8](repeating: 0, count: 31) + [1] + [UInt8](repeating: 0, count: 31) + [1]
        return [
            (
                "metadata address", with(endpoint: "https://169.254.169.254/x"),
                "not a push service this server sends to"
            ),
            (
                "unlisted service", with(endpoint: "https://push.elsewhere.example/x"),
                "not a push service this server sends to"
            ),
            ("p256dh off the curve", with(p256dh: offCurve), "keys.p256dh is not a point on P-256"),
            ("auth of 15 bytes", with(auth: Array(good.auth.prefix(15))), "keys.auth of 16"),
            ("auth of 17 bytes", with(auth: good.auth + [7]), "keys.auth of 16"),
        ]
    }

    private func encoded(_ json: String) -> String {
        Base64.encode(Array(json.utf8)).addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
    }

    func testTheTokenReporterStoresNoSubscriptionItCouldNotPushTo() throws {
        for subscription in try unusable() {
            let response = try pushgate.client.get(
                "/token/?selector=\(Self.selector)&token_msgs=\(encoded(subscription.json))&appid_msgs=\(Self.app)")
            XCTAssertEqual(response.status, 400, "\(subscription.name): \(response.text)")
            XCTAssertTrue(response.text.hasPrefix("token_msgs "), "\(subscription.name): \(response.text)")
            XCTAssertTrue(response.text.contains(subscription.reason), "\(subscription.name): \(response.text)")
        }
        XCTAssertEqual(try pushgate.storedDevices().count, 0)

        let good = try push.createSubscription()
        let stored = try pushgate.client.get(
            "/token/?selector=\(Self.selector)&token_msgs=\(encoded(good.json))&appid_msgs=\(Self.app)")
        XCTAssertEqual(stored.status, 200, stored.text)
        XCTAssertEqual(try pushgate.storedDevices().compactMap { $0["platform"] as? String }, ["web"])
    }

    func testPnm2SendsToNoSubscriptionItCouldNotPushTo() throws {
        for subscription in try unusable() {
            let response = try pushgate.client.post(
                "/pnm2/send", contentType: "application/json",
                body:
                    #"{"verb": "NotifyGenericTextMessage", "AppId": "\#(Self.app)", "DeviceToken": "\#(Base64.encode(Array(subscription.json.utf8)))", "Message": "hi"}"#
            )
            // pnm2's send answers each push's code in the body, HTTP 200 (docs/api/pnm2.md).
            XCTAssertEqual(response.status, 200, "\(subscription.name): \(response.text)")
            let reply = try XCTUnwrap(try JSONValue.parse(response.body).objectValue, response.text)
            XCTAssertEqual(reply["code"], .number(400), response.text)
            let text = reply["response"]?.stringValue ?? ""
            XCTAssertTrue(text.hasPrefix("Bad object you sent here: DeviceToken "), "\(subscription.name): \(text)")
            XCTAssertTrue(text.contains(subscription.reason), "\(subscription.name): \(text)")
        }
        XCTAssertEqual(push.log.count, 0, "nothing reached the push service")
        XCTAssertEqual(try pushgate.storedDevices().count, 0)
    }

    func testTheBeamsDeviceAPIRegistersNoSubscriptionItCouldNotPushTo() throws {
        let devices = "/device_api/v1/instances/\(Self.instance)/devices/web"
        func post(_ path: String, _ method: String = "POST", token json: String) throws -> HTTPClient.Response {
            let body = #"{"token":"\#(Base64.encode(Array(json.utf8)))"}"#
            return try pushgate.client.request(
                method, path, headers: ["Content-Type": "application/json"], body: Array(body.utf8))
        }
        let cases = try unusable()
        for subscription in cases {
            let response = try post(devices, token: subscription.json)
            XCTAssertEqual(response.status, 400, "\(subscription.name): \(response.text)")
            let error = try XCTUnwrap(try JSONValue.parse(response.body).objectValue, response.text)
            XCTAssertNotNil(error["error"]?.stringValue, response.text)
            let description = error["description"]?.stringValue ?? ""
            XCTAssertTrue(description.contains(subscription.reason), "\(subscription.name): \(description)")
        }
        XCTAssertEqual(try pushgate.storedDevices().count, 0)

        // A registered browser cannot move to such a subscription either.
        let good = try push.createSubscription()
        let registered = try post(devices, token: good.json)
        XCTAssertEqual(registered.status, 200, registered.text)
        let id = try XCTUnwrap(try JSONValue.parse(registered.body).objectValue?["id"]?.stringValue, registered.text)
        for subscription in cases {
            let response = try post("\(devices)/\(id)/token", "PUT", token: subscription.json)
            XCTAssertEqual(response.status, 400, "\(subscription.name): \(response.text)")
        }
        let stored = try pushgate.storedDevices()
        XCTAssertEqual(stored.count, 1)
        XCTAssertEqual(
            (stored.first?["token"] as? String).flatMap { WebPushSubscription.parse(json: Array($0.utf8)) }?.endpoint
                .url,
            good.endpoint, "\(stored)")
    }
}
