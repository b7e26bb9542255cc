import Foundation
import PushCore
import XCTest

@testable import PushStore

/// Every APNs push type as the store keeps it, on both engines: an app's type and topic, and a
/// queued push's type with its controls (the schema's CHECKs list each name).
final class APNsPushTypeStoreTests: OutboxTestCase {
    func testEveryPushTypeIsKeptAsAnAppsTypeAndAQueuedPushs() throws {
        let store = try makeStore()
        let ids = try makeDevices(store, count: 1)
        for type in APNsPushType.allCases {
            let app = RegisteredApp(
                id: AppID("com.example.\(type.rawValue)")!,
                credentials: .apnsToken(teamID: "TEAM123456", keyID: "KEY1234567", privateKeyPEM: "PEM"),
                apnsTopic: type.topic(bundleID: "com.example.\(type.rawValue)") ?? "com.apple.mgmt.External.1",
                apnsPushType: type)
            try store.addApp(app, replacing: false)
            XCTAssertEqual(try store.app(id: app.id), app, type.rawValue)

            let message = OutboxMessage(
                source: "test",
                apns: APNsMessage(
                    payload: Array(#"{"aps":{}}"#.utf8), pushType: type, priority: type.defaultPriority,
                    expiration: type.requiredExpiration ?? 1_900_000_000, collapseID: "c-\(type.rawValue)"))
            XCTAssertEqual(try store.enqueue(message, deviceIDs: ids), 1, type.rawValue)
        }
        let claimed = try store.claimDue(limit: 100, now: Outbox.storeNow, lease: 30_000)
        XCTAssertEqual(claimed.compactMap(\.notification.apns?.pushType), APNsPushType.allCases)
        XCTAssertEqual(claimed.compactMap(\.notification.apns?.expiration).filter { $0 == 0 }.count, 1, "pushtotalk's")
        XCTAssertEqual(
            claimed.compactMap(\.notification.apns?.collapseID), APNsPushType.allCases.map { "c-\($0.rawValue)" })
    }
}
