@testable import App
import Foundation
import PushCore
import XCTest

/// `apps add --push-type/--topic` and `pushgate send`'s per-push options: what they make of
/// an app or a push, and the refusal that names the option.
final class PushTypeOptionsTests: XCTestCase {
    private var keyFile: String!

    override func setUpWithError() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("push-type-\(UUID().uuidString).p8")
        try """
            -----BEGIN PRIVATE KEY-----
            MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgWn/Q0n+EgODMBX4y
            jOmotlRUfmYaymjTzAEfUGXRzhehRANCAAQzr4AOE54EwdD3t4b945d5IDNuhH/Y
            CvwBw94DkaWaMXbJ00M1ofpauwb2eAMbzFs8j1lTBHJyk7h/PAuZuTDD
            -----END PRIVATE KEY-----

            """.write(to: url, atomically: true, encoding: .utf8)
        keyFile = url.path
    }

    override func tearDown() {
        try? FileManager.default.removeItem(atPath: keyFile)
    }

    private func register(_ pushType: String?, topic: String? = nil, id: String = "com.example.app") throws -> RegisteredApp {
        try AppRegistration(
            id: id, platform: "apns", teamID: "TEAM123456", keyID: "KEY1234567", keyFile: keyFile, topic: topic,
            pushType: pushType, sandbox: false, serviceAccountFile: nil, appKey: nil
        ).validated()
    }

    private func failure(_ body: () throws -> Any) -> String {
        do {
            _ = try body()
            return "no error"
        } catch {
            return "\(error)"
        }
    }

    func testAppsAddDerivesEachTypesTopicFromTheAppID() throws {
        for type in APNsPushType.allCases where type != .mdm {
            let app = try register(type.rawValue)
            XCTAssertEqual(app.apnsPushType, type)
            XCTAssertEqual(app.apnsTopic, "com.example.app" + (type.topicSuffix ?? ""), "\(type)")
        }
        XCTAssertEqual(try register(nil).apnsPushType, .alert)
        XCTAssertEqual(try register(nil).apnsTopic, "com.example.app")
        XCTAssertEqual(try register("voip", id: "com.example.app.voip").apnsTopic, "com.example.app.voip")
        XCTAssertEqual(try register("voip", topic: "com.other.voip").apnsTopic, "com.other.voip", "--topic wins")
        XCTAssertEqual(try register("mdm", topic: "com.apple.mgmt.External.1").apnsTopic, "com.apple.mgmt.External.1")

        XCTAssertTrue(failure { try self.register("mdm") }.contains("--push-type mdm needs --topic"))
        XCTAssertEqual(
            failure { try self.register("voip", topic: "com.example.app") },
            "--topic com.example.app does not end with .voip after the bundle id, which APNs requires of voip pushes")
        XCTAssertTrue(failure { try self.register("widgets", topic: ".push-type.widgets") }.contains("does not end with"))
        let unknown = failure { try self.register("banner") }
        XCTAssertTrue(unknown.contains("--push-type must be one of alert, background, location"), unknown)
        XCTAssertTrue(unknown.hasSuffix("not banner"), unknown)
    }

    private let apnsApp = RegisteredApp(
        id: AppID("com.example.app")!, credentials: .apnsToken(teamID: "T", keyID: "K", privateKeyPEM: ""),
        apnsTopic: "com.example.app.voip", apnsPushType: .voip)
    private let fcmApp = RegisteredApp(
        id: AppID("com.example.android")!, credentials: .fcmServiceAccount(json: "{}", projectID: "p"))
    private let payload = APNsMessage(payload: Array(#"{"aps":{}}"#.utf8))

    func testSendSetsAPNsControlsAndAnotherTypesTopic() throws {
        let same = try SendControls(priority: 5, expiration: 0, collapseID: "call-1").applied(to: payload, app: apnsApp)
        XCTAssertEqual(
            same,
            APNsMessage(payload: payload.payload, priority: 5, expiration: 0, collapseID: "call-1"),
            "the app's type: its topic, no type named")
        let ptt = try SendControls(pushType: "pushtotalk").applied(to: payload, app: apnsApp)
        XCTAssertEqual(ptt.pushType, .pushtotalk)
        XCTAssertEqual(ptt.topic, "com.example.app.voip-ptt", "the bundle id under the app's voip topic")
        let alert = try SendControls(pushType: "alert").applied(to: payload, app: apnsApp)
        XCTAssertEqual(alert.topic, "com.example.app")
        let named = try SendControls(pushType: "liveactivity", topic: "com.x.push-type.liveactivity").applied(to: payload, app: apnsApp)
        XCTAssertEqual(named.topic, "com.x.push-type.liveactivity")
    }

    func testSendRefusalsNameTheOption() {
        let cases: [(SendControls, String)] = [
            (SendControls(priority: 7), "--priority must be 1, 5 or 10 for voip pushes, not 7"),
            (SendControls(pushType: "background", priority: 10), "--priority must be 1 or 5 for background pushes, not 10"),
            (SendControls(pushType: "pushtotalk", expiration: 60), "--expiration must be 0 for pushtotalk pushes, not 60"),
            (SendControls(expiration: -1), "--expiration must be a Unix time in seconds"),
            (SendControls(collapseID: String(repeating: "x", count: 65)), "--collapse-id must be at most 64 bytes (it is 65)"),
            (SendControls(pushType: "mdm"), "--push-type mdm needs --topic"),
            (SendControls(pushType: "liveactivity", topic: "com.example.app"), "--topic com.example.app does not end with .push-type.liveactivity"),
            (SendControls(topic: "com.example.app"), "--topic com.example.app does not end with .voip"),
            (SendControls(pushType: "banner"), "--push-type must be one of"),
            (SendControls(ttl: 60), "--ttl is for FCM apps; com.example.app is an APNs app"),
            (SendControls(fcmPriority: "high"), "--fcm-priority is for FCM apps"),
        ]
        for (controls, expected) in cases {
            let text = failure { try controls.applied(to: self.payload, app: self.apnsApp) }
            XCTAssertTrue(text.hasPrefix(expected), "\(text) should start with \(expected)")
        }
    }

    func testSendSetsAWebPushTTLAndRefusesTheRest() throws {
        let web = RegisteredApp(
            id: AppID("com.example.web")!, credentials: .webPush(vapidPrivateKeyPEM: "", subject: "mailto:ops@example.com"))
        let message = WebPushMessage(payload: Array("{}".utf8), ttl: 86_400)
        XCTAssertEqual(try SendControls(ttl: 60).applied(to: message, app: web).ttl, 60)
        XCTAssertEqual(try SendControls(ttl: nil).applied(to: message, app: web), message)
        let cases: [(SendControls, String)] = [
            (SendControls(ttl: -1), "--ttl must be 0 to 2592000 seconds for a web app, not -1"),
            (SendControls(priority: 10), "--priority is for APNs apps; com.example.web is a web app"),
            (SendControls(collapseKey: "k"), "--collapse-key is for FCM apps; com.example.web is a web app"),
        ]
        for (controls, expected) in cases {
            let text = failure { try controls.applied(to: message, app: web) }
            XCTAssertTrue(text.hasPrefix(expected), "\(text) should start with \(expected)")
        }
    }

    func testSendSetsFCMControlsInTheAndroidObject() throws {
        let message = FCMMessage(fields: ["data": .object(["k": .string("v")])])
        let sent = try SendControls(ttl: 0, collapseKey: "news", fcmPriority: "normal").applied(to: message, app: fcmApp)
        XCTAssertEqual(
            sent.fields["android"],
            .object(["ttl": .string("0s"), "collapse_key": .string("news"), "priority": .string("NORMAL")]))
        let cases: [(SendControls, String)] = [
            (SendControls(ttl: 2_419_201), "--ttl must be 0 to 2419200 seconds"),
            (SendControls(collapseKey: ""), "--collapse-key must not be empty"),
            (SendControls(fcmPriority: "urgent"), "--fcm-priority must be normal or high, not urgent"),
            (SendControls(priority: 10), "--priority is for APNs apps; com.example.android is an FCM app"),
            (SendControls(pushType: "alert"), "--push-type is for APNs apps"),
        ]
        for (controls, expected) in cases {
            let text = failure { try controls.applied(to: message, app: self.fcmApp) }
            XCTAssertTrue(text.hasPrefix(expected), "\(text) should start with \(expected)")
        }
    }
}

extension SendControls {
    /// The controls as `pushgate send`'s options would give them. (The parser's own `init()`
    /// sets none of them: only `parse` does.)
    init(
        pushType: String? = nil, topic: String? = nil, priority: Int? = nil, expiration: Int? = nil,
        collapseID: String? = nil, ttl: Int? = nil, collapseKey: String? = nil, fcmPriority: String? = nil
    ) {
        self.init()
        self.pushType = pushType
        self.topic = topic
        self.priority = priority
        self.expiration = expiration
        self.collapseID = collapseID
        self.ttl = ttl
        self.collapseKey = collapseKey
        self.fcmPriority = fcmPriority
    }
}

extension AppRegistration {
    /// What `apps add` would parse from these options (every other one left out).
    init(
        id: String, platform: String, teamID: String?, keyID: String?, keyFile: String?, topic: String?,
        pushType: String?, sandbox: Bool, serviceAccountFile: String?, appKey: String?
    ) {
        self.init()
        self.id = id
        self.platform = platform
        self.teamID = teamID
        self.keyID = keyID
        self.keyFile = keyFile
        self.certFile = nil
        self.certKey = nil
        self.certPasswordFile = nil
        self.certPassword = nil
        self.topic = topic
        self.pushType = pushType
        self.sandbox = sandbox
        self.serviceAccount = serviceAccountFile
        self.vapidSubject = nil
        self.vapidKeyFile = nil
        self.appKey = appKey
        self.openToMatrix = false
    }
}
