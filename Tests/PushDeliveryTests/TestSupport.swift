import PushTesting
import Foundation
import Logging
import PushCore
import PushDelivery
import XCTest

/// A clock the test moves by hand. `@unchecked Sendable`: `seconds` is guarded by `lock`.
final class ManualClock: @unchecked Sendable {
    private let lock = NSLock()
    private var seconds: Int

    init(_ start: Int = 1_800_000_000) {
        seconds = start
    }

    var now: Int { lock.withLock { seconds } }

    func advance(by delta: Int) {
        lock.withLock { seconds += delta }
    }

    var unixClock: UnixClock { UnixClock { [self] in now } }
}

/// Waits for one asynchronous result.
func awaitResult<T: Sendable>(
    timeout: Double = 10, file: StaticString = #filePath, line: UInt = #line,
    _ start: (@escaping @Sendable (T) -> Void) -> Void
) -> T? {
    let box = ResultBox<T>()
    start { box.set($0) }
    let value = box.wait(timeout: timeout)
    if value == nil { XCTFail("no result within \(timeout) s", file: file, line: line) }
    return value
}


enum Fixtures {
    static let logger = Logger(label: "pushgate.tests.delivery")

    /// A 32-byte APNs device token whose hex is 0001…1f.
    static let apnsToken = DeviceToken(bytes: Array(0..<32))
    static let fcmToken = DeviceToken.fromFCMText("fcm-token-AAAA:bbbb_cccc-1234")!

    static func apnsTokenApp(
        id: String = "com.example.voip", topic: String? = nil, pushType: APNsPushType? = nil, sandbox: Bool = false,
        key: String = TestKeys.apnsKey
    ) -> RegisteredApp {
        RegisteredApp(
            id: AppID(id)!, credentials: .apnsToken(teamID: "TEAM123456", keyID: "KEY1234567", privateKeyPEM: key),
            apnsTopic: topic, apnsPushType: pushType, sandbox: sandbox)
    }

    static func fcmApp(id: String = "com.example.android", tokenURI: String = "https://oauth.test/token") -> RegisteredApp {
        RegisteredApp(
            id: AppID(id)!,
            credentials: .fcmServiceAccount(json: TestKeys.serviceAccountJSON(tokenURI: tokenURI), projectID: "pushgate-test"))
    }

    static func apnsPush(
        app: String = "com.example.voip", payload: [UInt8] = Array(#"{"aps":{"alert":"hi"}}"#.utf8),
        pushType: APNsPushType? = nil, priority: Int? = nil, topic: String? = nil, sandbox: Bool? = nil,
        expiration: Int? = nil, collapseID: String? = nil, id: String? = nil
    ) -> PushCore.Notification {
        PushCore.Notification(
            appID: AppID(app)!, token: apnsToken, sandbox: sandbox,
            apns: APNsMessage(
                payload: payload, pushType: pushType, priority: priority, topic: topic, expiration: expiration,
                collapseID: collapseID, id: id))
    }

    static func fcmPush(app: String = "com.example.android", token: DeviceToken = fcmToken) -> PushCore.Notification {
        PushCore.Notification(
            appID: AppID(app)!, token: token,
            fcm: FCMMessage(fields: ["data": .object(["call_id": .string("42")]), "android": .object(["priority": .string("high")])]))
    }

    static let endpoints = APNsEndpoints(production: "https://apns.test", sandbox: "https://apns-sandbox.test")
}
