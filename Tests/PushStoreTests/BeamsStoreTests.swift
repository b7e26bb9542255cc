import Foundation
import PushCore
import XCTest

@testable import PushStore

final class BeamsStoreTests: StoreTestCase {
    var store: (any StoreUnderTest)!
    let app = Fixture.apnsAppID

    override func setUpWithError() throws {
        try super.setUpWithError()
        store = try makeStore()
        var registered = Fixture.apnsApp
        registered.appKey = "ios-key"
        try store.addApp(registered, replacing: false)
        try store.addApp(Fixture.fcmApp, replacing: false)
    }

    func add(_ id: String, seed: UInt8) throws {
        let token = Fixture.apnsToken(seed)
        try store.addBeamsClient(id: id, appID: app, token: token, reportedToken: token.hex)
    }

    func testAppsAndClientsAreFoundByKeyAndID() throws {
        XCTAssertEqual(try store.beamsApp(appKey: "ios-key"), BeamsApp(id: app, platform: .apns, appKey: "ios-key"))
        XCTAssertEqual(try store.beamsApp(appKey: "beams-key-1")?.platform, .fcm)
        XCTAssertNil(try store.beamsApp(appKey: "nope"))
        try add("c1", seed: 1)
        XCTAssertEqual(try store.beamsClient(id: "c1")?.app.appKey, "ios-key")
        XCTAssertNil(try store.beamsClient(id: "c2"))
    }

    func testInterestsAreCheckedAgainstTheClientsAppKeyAndIdempotent() throws {
        try add("c1", seed: 1)
        XCTAssertEqual(try store.setBeamsInterest(clientID: "c1", appKey: "ios-key", interest: "a", subscribed: true), .done)
        XCTAssertEqual(try store.setBeamsInterest(clientID: "c1", appKey: "ios-key", interest: "a", subscribed: true), .done)
        XCTAssertEqual(
            try store.setBeamsInterest(clientID: "c1", appKey: "beams-key-1", interest: "b", subscribed: true), .wrongAppKey)
        XCTAssertEqual(try store.setBeamsInterest(clientID: "zz", appKey: "ios-key", interest: "a", subscribed: true), .unknownClient)
        let database = try openDatabase()
        XCTAssertEqual(try count("beams_interests", in: database), 1)
        XCTAssertEqual(try store.setBeamsInterest(clientID: "c1", appKey: "ios-key", interest: "a", subscribed: false), .done)
        XCTAssertEqual(try store.setBeamsInterest(clientID: "c1", appKey: "ios-key", interest: "a", subscribed: false), .done)
        XCTAssertEqual(try count("beams_interests", in: database), 0)
    }

    func testAReplacedTokenMovesTheClientAndDropsTheOwnerlessDevice() throws {
        try add("c1", seed: 1)
        try add("c2", seed: 2)
        XCTAssertTrue(try store.replaceBeamsClientToken(clientID: "c1", token: Fixture.apnsToken(3), reportedToken: "t3"))
        XCTAssertEqual(Set(try store.devices().map(\.token)), [Fixture.apnsToken(2), Fixture.apnsToken(3)])
        // Onto a token another client holds: one device, two owners.
        XCTAssertTrue(try store.replaceBeamsClientToken(clientID: "c1", token: Fixture.apnsToken(2), reportedToken: "t2"))
        let devices = try store.devices()
        XCTAssertEqual(devices.map(\.token), [Fixture.apnsToken(2)])
        XCTAssertEqual(devices.first?.owners.count, 2)
        XCTAssertFalse(try store.replaceBeamsClientToken(clientID: "nope", token: Fixture.apnsToken(4), reportedToken: "t4"))
        XCTAssertEqual(try store.devices().count, 1)
    }

    func testAPublishQueuesOneRowPerSubscribedDeviceOfTheApp() throws {
        try add("c1", seed: 1)
        try add("c2", seed: 2)
        try add("c3", seed: 2)  // same device as c2
        try add("c4", seed: 4)
        let fcmToken = DeviceToken.fromFCMText("fcm-token-1")!
        try store.addBeamsClient(id: "f1", appID: Fixture.fcmAppID, token: fcmToken, reportedToken: "fcm-token-1")
        for (client, interest, key) in [
            ("c1", "a", "ios-key"), ("c1", "b", "ios-key"), ("c2", "b", "ios-key"), ("c3", "a", "ios-key"),
            ("c4", "other", "ios-key"), ("f1", "a", "beams-key-1"),
        ] {
            XCTAssertEqual(try store.setBeamsInterest(clientID: client, appKey: key, interest: interest, subscribed: true), .done)
        }
        let message = OutboxMessage(source: "beams:publish", apns: APNsMessage(payload: Array(#"{"aps":{}}"#.utf8)))
        XCTAssertEqual(try store.publishToInterests(appID: app, interests: ["a", "b"], message: message), 2)
        XCTAssertEqual(try store.publishToInterests(appID: app, interests: ["nobody"], message: message), 0)
        // The publish nobody receives keeps no payload.
        XCTAssertEqual(try count("outbox_payloads", in: try openDatabase()), 1)
        let claimed = try store.claimDue(limit: 10, now: Int64.max / 2, lease: 1_000)
        XCTAssertEqual(Set(claimed.map(\.notification.token)), [Fixture.apnsToken(1), Fixture.apnsToken(2)])
        XCTAssertEqual(claimed.first?.source, "beams:publish")
        XCTAssertEqual(try store.pendingCount(), 2)
    }

    func testAPrunedDeviceTakesItsClientsAndInterests() throws {
        try add("c1", seed: 1)
        XCTAssertEqual(try store.setBeamsInterest(clientID: "c1", appKey: "ios-key", interest: "a", subscribed: true), .done)
        let message = OutboxMessage(source: "beams:publish", apns: APNsMessage(payload: Array("{}".utf8)))
        XCTAssertEqual(try store.publishToInterests(appID: app, interests: ["a"], message: message), 1)
        let claimed = try store.claimDue(limit: 10, now: Int64.max / 2, lease: 1_000)
        try store.complete([(claimed[0], .deadToken(reason: "Unregistered", since: nil))], now: 0)
        XCTAssertNil(try store.beamsClient(id: "c1"))
        let database = try openDatabase()
        XCTAssertEqual(try count("beams_interests", in: database), 0)
        XCTAssertEqual(try count("devices", in: database), 0)
    }
}
