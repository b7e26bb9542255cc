import Foundation
import PushCore
import PushTesting
import XCTest
@testable import PushAPI

/// The Token Reporter against the in-memory store: every example of the document, each legacy
/// name, and the refusals (which must leave the store untouched).
final class TokenReporterTests: XCTestCase {
    static let selector = "12869E0E6E553673C54F29105A0647204C416A2A:7C3A0D14"
    static let callsToken = "Udl99X2JFP1bWwS5gR/wGeLE1hmAB2CMpr1Ej0wxkrY="
    static let msgsToken = "QVBBOTFiRzlhcVd2bW54bllCWldHOWh4dnRrZ3pUWFNvcGZpdWZ6bWM2dFAzS2J"
    /// The document's GET example, byte for byte.
    static let documentGET = "/token/?username=johndow&password=12345678&selector=12869E0E6E553673C54F29105A0647204C416A2A:7C3A0D14&token_msgs=QVBBOTFiRzlhcVd2bW54bllCWldHOWh4dnRrZ3pUWFNvcGZpdWZ6bWM2dFAzS2J&appid_msgs=com.cloudsoftphone.app&token_calls=Udl99X2JFP1bWwS5gR%2FwGeLE1hmAB2CMpr1Ej0wxkrY%3D&appid_calls=com.cloudsoftphone.app.pushkit"
    static let documentJSON = """
        {
            "token_msgs"    : "QVBBOTFiRzlhcVd2bW54bllCWldHOWh4dnRrZ3pUWFNvcGZpdWZ6bWM2dFAzS2J",
            "appid_msgs"    : "com.cloudsoftphone.app",
            "token_calls"   : "Udl99X2JFP1bWwS5gR/wGeLE1hmAB2CMpr1Ej0wxkrY=",
            "appid_calls"   : "com.cloudsoftphone.app.pushkit",
            "selector"      : "12869E0E6E553673C54F29105A0647204C416A2A:7C3A0D14"
        }
        """

    var store: InMemoryTokenStore!
    var reporter: RouteGroup!

    override func setUp() {
        store = InMemoryTokenStore()
        reporter = RouteGroup(
            errors: ReporterErrors(), TokenReporter(apps: store, accounts: store, subscriptions: .forDialectTests).routes)
    }

    private func owners() throws -> [String: (app: String, token: DeviceToken, username: String?)] {
        var result: [String: (String, DeviceToken, String?)] = [:]
        for device in try store.devices() {
            for case .acrobitsAccount(let selector, let channel, let username) in device.owners {
                result["\(selector)/\(channel.rawValue)"] = (device.appID.rawValue, device.token, username)
            }
        }
        return result
    }

    private func assertDocumentsTokensStored(username: String? = "johndow", file: StaticString = #filePath, line: UInt = #line) throws {
        let stored = try owners()
        XCTAssertEqual(stored.count, 2, file: file, line: line)
        let calls = try XCTUnwrap(stored["\(Self.selector)/calls"], file: file, line: line)
        XCTAssertEqual(calls.app, "com.cloudsoftphone.app.pushkit", file: file, line: line)
        XCTAssertEqual(calls.token, DeviceToken.fromBase64(Self.callsToken), file: file, line: line)
        XCTAssertEqual(calls.username, username, file: file, line: line)
        let msgs = try XCTUnwrap(stored["\(Self.selector)/msgs"], file: file, line: line)
        XCTAssertEqual(msgs.app, "com.cloudsoftphone.app", file: file, line: line)
        XCTAssertEqual(msgs.token.fcmText, "APA91bG9aqWvmnxnYBZWG9hxvtkgzTXSopfiufzmc6tP3Kb", file: file, line: line)
    }

    func testTheDocumentsGETExample() throws {
        let response = reporter.handle(Request(method: "GET", target: Self.documentGET))
        XCTAssertEqual(response, .emptyOK)
        XCTAssertNil(response.header("Content-Type"))
        try assertDocumentsTokensStored()
    }

    /// Non-ASCII usernames go the long way round the control-character check, and pass it.
    func testANonASCIIUsernameIsStoredAsSent() throws {
        let target = Self.documentGET.replacingOccurrences(of: "username=johndow", with: "username=j%C3%BCrgen%20m%C3%BCller")
        XCTAssertEqual(reporter.handle(Request(method: "GET", target: target)), .emptyOK)
        try assertDocumentsTokensStored(username: "jürgen müller")
    }

    func testTheDocumentsJSONExampleTakesTheUsernameFromThePath() throws {
        let response = reporter.handle(
            Request(method: "POST", path: "/token/johndow/", headers: ["content-type": "application/json"], body: Array(Self.documentJSON.utf8)))
        XCTAssertEqual(response, .emptyOK)
        try assertDocumentsTokensStored()
    }

    func testTheDocumentsFormPostData() throws {
        let body = "username=johndow&selector=\(Self.selector)&token_calls=Udl99X2JFP1bWwS5gR%2FwGeLE1hmAB2CMpr1Ej0wxkrY%3D&appid_calls=com.cloudsoftphone.app.pushkit&token_msgs=\(Self.msgsToken)&appid_msgs=com.cloudsoftphone.app"
        for contentType in ["application/x-www-form-urlencoded", "application/x-www-form-urlencoded; charset=UTF-8", nil] {
            setUp()
            let headers = contentType.map { ["content-type": $0] } ?? [:]
            XCTAssertEqual(reporter.handle(Request(method: "POST", path: "/token/", headers: headers, body: Array(body.utf8))), .emptyOK)
            try assertDocumentsTokensStored()
        }
    }

    func testThePathStyle() throws {
        let path = "/pushToken/johndow/\(Self.selector)/Udl99X2JFP1bWwS5gR%2FwGeLE1hmAB2CMpr1Ej0wxkrY%3D&appid=com.cloudsoftphone.app"
        XCTAssertEqual(reporter.handle(Request(method: "GET", path: path)), .emptyOK)
        let msgs = try XCTUnwrap(try owners()["\(Self.selector)/msgs"])
        XCTAssertEqual(msgs.app, "com.cloudsoftphone.app")
        XCTAssertEqual(msgs.token, DeviceToken.fromBase64(Self.callsToken))
        XCTAssertEqual(msgs.username, "johndow")
    }

    func testThePathStyleWithAnUnencodedSlashInTheToken() throws {
        let path = "/pushToken/johndow/\(Self.selector)/\(Self.callsToken)&appid=com.cloudsoftphone.app"
        XCTAssertEqual(reporter.handle(Request(method: "GET", path: path)), .emptyOK)
        XCTAssertEqual(try owners()["\(Self.selector)/msgs"]?.token, DeviceToken.fromBase64(Self.callsToken))
    }

    func testLegacyNames() throws {
        let query = "selector=\(Self.selector)&pushTokenIncomingCall=Udl99X2JFP1bWwS5gR%2FwGeLE1hmAB2CMpr1Ej0wxkrY%3D&pushappid_incoming_call=com.cloudsoftphone.app.pushkit&pushTokenOther=\(Self.msgsToken)&pushappid_other=com.cloudsoftphone.app&username=johndow"
        XCTAssertEqual(reporter.handle(Request(method: "GET", target: "/token/?" + query)), .emptyOK)
        try assertDocumentsTokensStored()

        setUp()
        let legacy = "selector=\(Self.selector)&pushToken=\(Self.msgsToken)&pushappid=com.cloudsoftphone.app"
        XCTAssertEqual(reporter.handle(Request(method: "GET", target: "/token/?" + legacy)), .emptyOK)
        XCTAssertEqual(try owners()["\(Self.selector)/msgs"]?.app, "com.cloudsoftphone.app")
    }

    func testJSONLegacyAppIdNames() throws {
        let json = #"{"selector":"\#(Self.selector)","username":"johndow","token_calls":"\#(Self.callsToken)","appId_calls":"com.cloudsoftphone.app.pushkit","token_msgs":"\#(Self.msgsToken)","appId_msgs":"com.cloudsoftphone.app"}"#
        let response = reporter.handle(Request(method: "POST", path: "/token/", headers: ["content-type": "application/json"], body: Array(json.utf8)))
        XCTAssertEqual(response, .emptyOK)
        try assertDocumentsTokensStored()
    }

    /// The words the apps send for "no token yet", in any case and with ASCII whitespace
    /// around them; anything longer or different is a value.
    func testWhatMeansAbsent() {
        for absent in ["", " ", "\t\r\n", "null", "NULL", "Null", " (null) ", "(NULL)", "(nUlL)\n"] {
            XCTAssertTrue(ReporterParameters.meansAbsent(absent), absent.debugDescription)
        }
        for present in ["nul", "nulls", "(null", "null)", "( null)", "n ull", "\u{A0}null", "nuII", "0", "Udl99X2JFP1b"] {
            XCTAssertFalse(ReporterParameters.meansAbsent(present), present.debugDescription)
        }
    }

    func testNullTokensEraseNothing() throws {
        XCTAssertEqual(reporter.handle(Request(method: "GET", target: Self.documentGET)), .emptyOK)
        for absent in ["", "null", "(null)", "%28null%29"] {
            let query = "selector=\(Self.selector)&username=johndow&token_msgs=\(absent)&appid_msgs=com.cloudsoftphone.app&token_calls=\(absent)&appid_calls=com.cloudsoftphone.app.pushkit"
            XCTAssertEqual(reporter.handle(Request(method: "GET", target: "/token/?" + query)), .emptyOK, absent)
            try assertDocumentsTokensStored()
        }
        let json = #"{"selector":"\#(Self.selector)","token_msgs":null,"appid_msgs":"com.cloudsoftphone.app"}"#
        XCTAssertEqual(reporter.handle(Request(method: "POST", path: "/token/", headers: ["content-type": "application/json"], body: Array(json.utf8))), .emptyOK)
        try assertDocumentsTokensStored()
    }

    func testANewReportReplacesTheChannelsToken() throws {
        XCTAssertEqual(reporter.handle(Request(method: "GET", target: Self.documentGET)), .emptyOK)
        let newToken = Base64.encode(Array(repeating: 7, count: 32))
        let query = "selector=\(Self.selector)&token_calls=\(newToken.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)&appid_calls=com.cloudsoftphone.app.pushkit"
        XCTAssertEqual(reporter.handle(Request(method: "GET", target: "/token/?" + query)), .emptyOK)
        XCTAssertEqual(try owners()["\(Self.selector)/calls"]?.token.bytes, Array(repeating: 7, count: 32))
        XCTAssertEqual(try store.devices().count, 2, "the replaced token's device is gone")
    }

    func testATokenThatDoesNotFitARegisteredAppsPlatformIsRefused() throws {
        try store.addApp(
            RegisteredApp(id: AppID("com.cloudsoftphone.app")!, credentials: .fcmServiceAccount(json: "{}", projectID: "p")),
            replacing: false)
        let writes = store.writeCount
        let query = "selector=\(Self.selector)&token_msgs=Udl99X2JFP1bWwS5gR%2FwGeLE1hmAB2CMpr1Ej0wxkrY%3D&appid_msgs=com.cloudsoftphone.app"
        let response = reporter.handle(Request(method: "GET", target: "/token/?" + query))
        XCTAssertEqual(response.status, 400)
        XCTAssertTrue(String(decoding: response.body, as: UTF8.self).contains("FCM registration token"))
        XCTAssertEqual(store.writeCount, writes)
    }

    // MARK: FCM tokens raw or base64

    func testReportedFCMTokensAreReadRawOrFromBase64() {
        let raw = "eT3xQ9rTSd6:APA91bHun4MxP5egoKMwt2KZFBaFUH-1RYqx_k7Lw3Bq0oQ"
        let text = DeviceToken(bytes: Array(raw.utf8))
        let base64 = Base64.encode(Array(raw.utf8))
        let urlSafe = base64.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
        let legacy = "APA91bHun4MxP5egoKMwt2KZFBaFUH-1RYqx"
        let apns = DeviceToken(bytes: Array(repeating: 0xAB, count: 32))
        for platform in [Platform.fcm, nil] {
            XCTAssertEqual(ReportedToken.token(raw, platform: platform), text)
            XCTAssertEqual(ReportedToken.token(base64, platform: platform), text)
            XCTAssertEqual(ReportedToken.token(urlSafe, platform: platform), text)
            // Legacy GCM tokens are base64's alphabet, but decode to no text: they stand as they are.
            XCTAssertNotNil(DeviceToken.fromBase64(legacy))
            XCTAssertEqual(ReportedToken.token(legacy, platform: platform), DeviceToken(bytes: Array(legacy.utf8)))
            XCTAssertNil(ReportedToken.token("has space:APA91b", platform: platform))
            XCTAssertNil(ReportedToken.token("a:b\u{0}c:APA91b", platform: platform))
            XCTAssertNil(ReportedToken.token("", platform: platform))
        }
        // An APNs token is base64 of 32+ bytes and nothing else; an FCM app refuses it, an
        // unregistered app keeps its bytes.
        XCTAssertEqual(ReportedToken.token(apns.base64, platform: .apns), apns)
        XCTAssertNil(ReportedToken.token(apns.base64, platform: .fcm))
        XCTAssertEqual(ReportedToken.token(apns.base64, platform: nil), apns)
        XCTAssertNil(ReportedToken.token(raw, platform: .apns))
        XCTAssertNil(ReportedToken.token(Base64.encode([1, 2, 3]), platform: .apns))
        // Neither base64 nor an FCM token's alphabet.
        XCTAssertNil(ReportedToken.token("not*base64", platform: nil))
        XCTAssertNil(ReportedToken.token("star*:APA91b", platform: .fcm))
    }

    func testARawFCMTokenIsStoredAsItsTextAndMeetsItsBase64Form() throws {
        try store.addApp(
            RegisteredApp(id: AppID("com.example.android")!, credentials: .fcmServiceAccount(json: "{}", projectID: "p")),
            replacing: false)
        let raw = "eT3xQ9rTSd6:APA91bHun4MxP5egoKMwt2KZFBaFUH-1RYqx_k7Lw3Bq0oQ"
        let first = reporter.handle(
            Request(method: "GET", target: "/token/?selector=S100000000000000:1&token_msgs=\(raw)&appid_msgs=com.example.android"))
        XCTAssertEqual(first.status, 200, String(decoding: first.body, as: UTF8.self))
        let encoded = Base64.encode(Array(raw.utf8)).addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let second = reporter.handle(
            Request(method: "GET", target: "/token/?selector=S200000000000000:1&token_msgs=\(encoded)&appid_msgs=com.example.android"))
        XCTAssertEqual(second.status, 200, String(decoding: second.body, as: UTF8.self))
        let devices = try store.devices()
        XCTAssertEqual(devices.map(\.token), [DeviceToken(bytes: Array(raw.utf8))])
        XCTAssertEqual(devices.first?.owners.count, 2)
    }

    func testRefusals() throws {
        let json = ["content-type": "application/json"]
        let cases: [(Request, Int, String)] = [
            (Request(method: "GET", target: "/token/?username=x&token_msgs=\(Self.msgsToken)&appid_msgs=a.b"), 400, "selector is required"),
            (Request(method: "GET", target: "/token/?selector=&token_msgs=\(Self.msgsToken)&appid_msgs=a.b"), 400, "selector is required"),
            (Request(method: "GET", target: "/token/?selector=a%20b"), 400, "selector must be printable ASCII"),
            (Request(method: "GET", target: "/token/?selector=S000000000000000:1&token_msgs=%%%"), 400, "malformed percent-encoding"),
            (Request(method: "GET", target: "/token/?selector=S000000000000000:1&token_msgs=not*base64&appid_msgs=a.b"), 400, "token_msgs is not a base64-encoded push token"),
            (Request(method: "GET", target: "/token/?selector=S000000000000000:1&token_msgs=\(Self.msgsToken)"), 400, "token_msgs was given without appid_msgs"),
            (Request(method: "GET", target: "/token/?selector=S000000000000000:1&token_calls=\(Self.msgsToken)&appid_calls=bad%2Fid"), 400, "appid_calls is not an application id"),
            (Request(method: "GET", target: "/token/?selector=S000000000000000:1&token_calls=\(String(repeating: "A", count: 5000))&appid_calls=a.b"), 400, "token_calls is longer than 4096"),
            (Request(method: "GET", target: "/token/?selector=\(String(repeating: "A", count: 201))"), 400, "selector is longer than 200"),
            (Request(method: "GET", target: "/token/?selector=S000000000000000:1&username=%E2%28"), 400, "query string is not valid UTF-8"),
            (Request(method: "GET", target: "/token/?selector=S000000000000000:1&username=bell%07"), 400, "username must not contain control characters"),
            (Request(method: "GET", target: "/token/?selector=S000000000000000:1&username=del%7F"), 400, "username must not contain control characters"),
            (Request(method: "GET", target: "/token/?selector=S000000000000000:1&username=j%C3%BCrgen%0A"), 400, "username must not contain control characters"),
            (Request(method: "PUT", target: "/token/?selector=s"), 405, "method PUT not allowed"),
            (Request(method: "DELETE", target: "/token/"), 405, "method DELETE not allowed"),
            (Request(method: "POST", path: "/token/", headers: json, body: Array("{\"selector\":".utf8)), 400, "body is not valid JSON"),
            (Request(method: "POST", path: "/token/", headers: json, body: Array("[1]".utf8)), 400, "JSON body must be an object"),
            (Request(method: "POST", path: "/token/", headers: json, body: Array(#"{"selector":5}"#.utf8)), 400, "selector must be a string"),
            (Request(method: "POST", path: "/token/", headers: json, body: Array(#"{"selector":"S000000000000000:1","token_msgs":["x"]}"#.utf8)), 400, "token_msgs must be a string"),
            (Request(method: "POST", path: "/token/", headers: json, body: [0x7B, 0x22, 0xC3, 0x28, 0x22, 0x3A, 0x22, 0x22, 0x7D]), 400, "body is not valid UTF-8"),
            (Request(method: "POST", path: "/token/", headers: ["content-type": "text/plain"], body: Array("selector=s".utf8)), 400, "unsupported content type text/plain"),
            (Request(method: "POST", path: "/token/", headers: ["content-type": "application/x-www-form-urlencoded"], body: [0x73, 0x3D, 0xFF]), 400, "body is not valid UTF-8"),
            (Request(method: "GET", path: "/token/a/b/c"), 404, "no reporter endpoint"),
            (Request(method: "GET", path: "/pushToken/only/two"), 404, "no reporter endpoint"),
        ]
        for (request, status, message) in cases {
            let response = reporter.handle(request)
            XCTAssertEqual(response.status, status, "\(request.method) \(request.path)?\(request.query)")
            let body = String(decoding: response.body, as: UTF8.self)
            XCTAssertTrue(body.hasPrefix(message), "got \(body) for \(request.path)?\(request.query.prefix(80))")
            XCTAssertTrue(body.hasSuffix("\n") && body.dropLast().contains("\n") == false, "one line: \(body)")
            XCTAssertEqual(response.header("Content-Type"), "text/plain; charset=utf-8")
        }
        XCTAssertEqual(store.writeCount, 0, "no refused request wrote anything")
        XCTAssertEqual(try store.devices(), [])
    }

    func testAccountRemoval() throws {
        XCTAssertEqual(reporter.handle(Request(method: "GET", target: Self.documentGET)), .emptyOK)
        let removal = RouteGroup(errors: ReporterErrors(), AccountRemovalReporter(accounts: store).routes)
        XCTAssertEqual(removal.handle(Request(method: "GET", target: "/removeAccount/")).status, 400)
        XCTAssertEqual(try store.devices().count, 2)
        XCTAssertEqual(removal.handle(Request(method: "GET", target: "/removeAccount/?selector=\(Self.selector)")), .emptyOK)
        XCTAssertEqual(try store.devices(), [])
        XCTAssertEqual(removal.handle(Request(method: "POST", path: "/removeAccount/johndow/", headers: ["content-type": "application/json"], body: Array(#"{"selector":"\#(Self.selector)"}"#.utf8))), .emptyOK)
        XCTAssertEqual(removal.handle(Request(method: "PATCH", path: "/removeAccount/")).status, 405)
    }
}

final class RouterTests: XCTestCase {
    struct Named: RequestHandler {
        let name: String
        func handle(_ request: Request) -> Response { .text(200, name) }
    }

    func testTailsMatchWholeSegments() {
        let router = Router(routes: [
            .init("/token/{path...}", Named(name: "token")),
            .init("/pushToken/{path...}", Named(name: "push")),
        ])
        XCTAssertEqual(router.handle(Request(method: "GET", path: "/token/")).body, Array("token\n".utf8))
        XCTAssertEqual(router.handle(Request(method: "GET", path: "/token")).body, Array("token\n".utf8))
        XCTAssertEqual(router.handle(Request(method: "GET", path: "/pushToken/a/b/c")).body, Array("push\n".utf8))
        XCTAssertEqual(router.handle(Request(method: "GET", path: "/tokens")).status, 404)
        XCTAssertEqual(router.handle(Request(method: "GET", path: "/")).status, 404)
    }

    func testHealthCheck() {
        XCTAssertEqual(HealthCheck().handle(Request(method: "GET", path: "/healthz")).status, 200)
        // The method is the route's: the router answers another in the plain words.
        let router = Router(routes: [.init("/healthz/{path...}", HealthCheck(), methods: ["GET", "HEAD"])])
        XCTAssertEqual(router.handle(Request(method: "HEAD", path: "/healthz")).status, 200)
        XCTAssertEqual(
            router.handle(Request(method: "POST", path: "/healthz")),
            .text(405, "use GET", headers: [("Allow", "GET, HEAD")]))
    }

    func testReadinessCheckLogsTheProbesReasonAndAnswersWithoutIt() {
        let ready = ReadinessCheck(notReadyReason: { nil }).handle(Request(method: "GET", path: "/readyz"))
        XCTAssertEqual(ready.status, 200)
        let notReady = ReadinessCheck(notReadyReason: { "the database does not answer" })
            .handle(Request(method: "HEAD", path: "/readyz"))
        XCTAssertEqual(notReady.status, 503)
        XCTAssertEqual(String(decoding: notReady.body, as: UTF8.self), "not ready\n")
        XCTAssertEqual(notReady.logNote, "not ready: the database does not answer")
        XCTAssertEqual(notReady.header("Retry-After"), "5")
    }
}
