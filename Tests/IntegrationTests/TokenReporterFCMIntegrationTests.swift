import Foundation
import MockUpstream
import PushCore
import PushTesting
import XCTest

/// FCM tokens through the Token Reporter as Android apps send them, raw (`<instance id>:APA91b…`)
/// or base64-encoded, then pushed to through pnm2: the mock FCM receives the token's text.
final class TokenReporterFCMIntegrationTests: XCTestCase {
    static let app = "com.example.softphone.android"
    static let apnsApp = "com.example.softphone"
    static let raw = "eT3xQ9rTSd6:APA91bHun4MxP5egoKMwt2KZFBaFUH-1RYqx_k7Lw3Bq0oQ-d8cZr_x1"
    static let other = "cN1pWq0aRk2:APA91bF0_other-token_A9Zx"

    var fcm: MockFCM!
    var pushgate: PushgateInstance!

    override func setUpWithError() throws {
        fcm = try MockFCM(configuration: MockFCMConfiguration(serviceAccounts: [try .fixture]))
        pushgate = try PushgateInstance(environment: PushgateInstance.upstreams(apns: nil, fcm: fcm))
        try pushgate.start()
        try pushgate.addMockFCMApp(id: Self.app, fcm: fcm)
        try pushgate.addMockAPNsApp(id: Self.apnsApp)
    }

    override func tearDown() {
        pushgate?.stop()
        pushgate = nil
        fcm?.shutdown()
        fcm = nil
    }

    func encoded(_ text: String) -> String { text.addingPercentEncoding(withAllowedCharacters: .alphanumerics)! }

    func report(selector: String, token: String, app: String = app) throws -> HTTPClient.Response {
        try pushgate.client.get("/token/?selector=\(selector)&token_msgs=\(encoded(token))&appid_msgs=\(app)")
    }

    /// pnm2 with the selector alone: pushgate sends to the account's stored token.
    func pushThroughPnm2(selector: String) throws {
        let response = try pushgate.client.post(
            "/pnm2/send", contentType: "application/json",
            body: #"{"verb": "NotifyTextMessage", "AppId": "\#(Self.app)", "Selector": "\#(selector)", "Message": "hi"}"#)
        XCTAssertEqual(response.status, 200, response.text)
        XCTAssertTrue(response.text.hasPrefix(#"{"code": 200"#), response.text)
    }

    func sentTokens() -> [String] {
        fcm.sendRequests.compactMap { $0.bodyJSON?.objectValue?["message"]?.objectValue?["token"]?.stringValue }
    }

    func testARawTokenAndABase64TokenAreBothStoredAsTheTokenText() throws {
        XCTAssertEqual(try report(selector: "raw-account-0000000000", token: Self.raw).status, 200)
        let base64 = Base64.encode(Array(Self.other.utf8))
        XCTAssertEqual(try report(selector: "b64-account-0000000000", token: base64).status, 200)

        let devices = try pushgate.storedDevices()
        XCTAssertEqual(
            Set(devices.map { "\($0["token"] as? String ?? "")|\($0["reported_token"] as? String ?? "")" }),
            ["\(Self.raw)|\(Self.raw)", "\(Self.other)|\(base64)"])
        XCTAssertTrue(devices.allSatisfy { $0["platform"] as? String == "fcm" }, "\(devices)")

        try pushThroughPnm2(selector: "raw-account-0000000000")
        try pushThroughPnm2(selector: "b64-account-0000000000")
        XCTAssertEqual(sentTokens(), [Self.raw, Self.other])
    }

    func testTheOtherStylesTakeARawTokenToo() throws {
        let json = try pushgate.client.post(
            "/token/", contentType: "application/json",
            body: #"{"selector": "json-account-0000000000", "token_msgs": "\#(Self.raw)", "appId_msgs": "\#(Self.app)"}"#)
        XCTAssertEqual(json.status, 200, json.text)
        let form = try pushgate.client.post(
            "/token/", contentType: "application/x-www-form-urlencoded",
            body: "selector=form-account-0000000000&pushToken=\(encoded(Self.other))&appid=\(Self.app)")
        XCTAssertEqual(form.status, 200, form.text)
        let path = try pushgate.client.get("/pushToken/alice/path-account-0000000000/\(Self.raw)&appid=\(Self.app)")
        XCTAssertEqual(path.status, 200, path.text)
        XCTAssertEqual(Set(try pushgate.storedDevices().compactMap { $0["token"] as? String }), [Self.raw, Self.other])
        try pushThroughPnm2(selector: "path-account-0000000000")
        XCTAssertEqual(sentTokens(), [Self.raw])
    }

    func testTheSameTokenReportedBothWaysIsOneDevice() throws {
        XCTAssertEqual(try report(selector: "account-1-0000000000", token: Self.raw).status, 200)
        XCTAssertEqual(try report(selector: "account-2-0000000000", token: Base64.encode(Array(Self.raw.utf8))).status, 200)
        // URL-safe base64 without padding, as some apps send it, is the same token again.
        let urlSafe = Base64.encode(Array(Self.raw.utf8)).replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        XCTAssertEqual(try report(selector: "account-3-0000000000", token: urlSafe).status, 200)
        let devices = try pushgate.storedDevices()
        XCTAssertEqual(devices.count, 1, "\(devices)")
        XCTAssertEqual(devices.first?["token"] as? String, Self.raw)
        XCTAssertEqual((devices.first?["owners"] as? [[String: Any]])?.count, 3, "\(devices)")
        // The phone switching back to the raw form changes nothing either.
        XCTAssertEqual(try report(selector: "account-2-0000000000", token: Self.raw).status, 200)
        XCTAssertEqual(try pushgate.storedDevices().count, 1)

        try pushThroughPnm2(selector: "account-2-0000000000")
        XCTAssertEqual(sentTokens(), [Self.raw])
    }

    func testWhatIsNoTokenOfTheAppsPlatformIsRefusedAndStoresNothing() throws {
        let apnsBase64 = "Udl99X2JFP1bWwS5gR/wGeLE1hmAB2CMpr1Ej0wxkrY="
        let cases: [(token: String, app: String, reason: String)] = [
            (apnsBase64, Self.app, "token_msgs is not an FCM registration token (as issued, or base64-encoded) for \(Self.app)"),
            ("has space:APA91b", Self.app, "token_msgs is not an FCM registration token"),
            ("star*:APA91b_token", Self.app, "token_msgs is not an FCM registration token"),
            ("ab:APA91b\u{7}bell", Self.app, "token_msgs is not an FCM registration token"),
            (Self.raw, Self.apnsApp, "token_msgs is not a base64-encoded APNs device token (32 bytes or more) for \(Self.apnsApp)"),
            ("no*token", "com.example.unregistered", "token_msgs is not a base64-encoded push token nor an FCM registration token"),
        ]
        for (token, app, reason) in cases {
            let response = try report(selector: "refused-0000000000", token: token, app: app)
            XCTAssertEqual(response.status, 400, token)
            XCTAssertTrue(response.text.hasPrefix(reason), "\(token): \(response.text)")
            XCTAssertTrue(response.text.hasSuffix("\n") && !response.text.dropLast().contains("\n"), response.text)
        }
        XCTAssertEqual(try pushgate.storedDevices().count, 0)
    }

    func testAnAppRegisteredLaterFindsItsRawTokensStored() throws {
        let later = "com.example.later.android"
        XCTAssertEqual(try report(selector: "early-0000000000", token: Self.raw, app: later).status, 200)
        XCTAssertEqual(try report(selector: "early-b64-0000000000", token: Base64.encode(Array(Self.other.utf8)), app: later).status, 200)
        try pushgate.addMockFCMApp(id: later, fcm: fcm)
        let response = try pushgate.client.post(
            "/pnm2/send", contentType: "application/json",
            body: #"{"verb": "NotifyTextMessage", "AppId": "\#(later)", "Selector": "early-0000000000", "Message": "hi"}"#)
        XCTAssertTrue(response.text.hasPrefix(#"{"code": 200"#), response.text)
        XCTAssertEqual(sentTokens(), [Self.raw])
        XCTAssertEqual(Set(try pushgate.storedDevices().compactMap { $0["token"] as? String }), [Self.raw, Self.other])
    }
}
