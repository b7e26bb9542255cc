import Foundation
import PushCore
import XCTest

@testable import PushStore

/// pnsub / pnunsub links and the topic fan-out, on the real schema.
final class BridgeSubscriptionStoreTests: StoreTestCase {
    let fcmToken = DeviceToken.fromFCMText("dXk:APA91bTest-token_1")!
    let message = OutboxMessage(
        source: "bridge:topic", apns: APNsMessage(payload: Array(#"{"aps":{}}"#.utf8)),
        fcm: FCMMessage(fields: ["data": .object(["k": .string("v")])]))

    func store() throws -> any StoreUnderTest {
        let store = try makeStore()
        try store.addApp(Fixture.apnsApp, replacing: false)
        try store.addApp(Fixture.fcmApp, replacing: false)
        return store
    }

    func selectors(_ store: any StoreUnderTest) throws -> [String] {
        try store.devices().flatMap { device in
            device.owners.compactMap { owner -> String? in
                if case .bridgeSubscription(let selector) = owner { return "\(device.token.hex) \(selector)" }
                return nil
            }
        }.sorted()
    }

    func testSubscribeIsIdempotentAndUnsubscribeDeletesTheLastOwnerlessDevice() throws {
        let store = try store()
        let token = Fixture.apnsToken(1)
        XCTAssertTrue(try store.subscribe(appID: Fixture.apnsAppID, token: token, reportedToken: "r", selector: ">a"))
        XCTAssertFalse(try store.subscribe(appID: Fixture.apnsAppID, token: token, reportedToken: "r", selector: ">a"))
        XCTAssertTrue(try store.subscribe(appID: Fixture.apnsAppID, token: token, reportedToken: "r", selector: ">b//"))
        XCTAssertEqual(try store.devices().count, 1)
        XCTAssertEqual(try selectors(store), ["\(token.hex) >a", "\(token.hex) >b//"])

        XCTAssertTrue(try store.unsubscribe(appID: Fixture.apnsAppID, token: token, selector: ">a"))
        XCTAssertFalse(try store.unsubscribe(appID: Fixture.apnsAppID, token: token, selector: ">a"))
        XCTAssertEqual(try store.devices().count, 1, "still subscribed to >b//")
        XCTAssertTrue(try store.unsubscribe(appID: Fixture.apnsAppID, token: token, selector: ">b//"))
        XCTAssertEqual(try store.devices().count, 0, "no owner left: the device goes")
        XCTAssertFalse(try store.unsubscribe(appID: Fixture.fcmAppID, token: fcmToken, selector: ">a"))
    }

    func testUnsubscribeKeepsADeviceAnotherDialectOwns() throws {
        let store = try store()
        let token = Fixture.apnsToken(2)
        try store.saveAccountTokens(
            selector: "acct", username: nil,
            tokens: [ChannelToken(channel: .msgs, appID: Fixture.apnsAppID, token: token, reportedToken: "r")])
        XCTAssertTrue(try store.subscribe(appID: Fixture.apnsAppID, token: token, reportedToken: "r2", selector: ">a"))
        XCTAssertEqual(try store.devices().count, 1, "one device, two owners")
        XCTAssertTrue(try store.unsubscribe(appID: Fixture.apnsAppID, token: token, selector: ">a"))
        XCTAssertEqual(try store.devices().first?.owners.count, 1)
    }

    func testAPublishQueuesEveryMatchingDeviceOnceForItsPlatform() throws {
        let store = try store()
        let (one, two, three) = (Fixture.apnsToken(1), Fixture.apnsToken(2), Fixture.apnsToken(3))
        _ = try store.subscribe(appID: Fixture.apnsAppID, token: one, reportedToken: "1", selector: ">news//")
        _ = try store.subscribe(appID: Fixture.apnsAppID, token: two, reportedToken: "2", selector: ">news/sport")
        _ = try store.subscribe(appID: Fixture.apnsAppID, token: two, reportedToken: "2", selector: ">news/")
        _ = try store.subscribe(appID: Fixture.apnsAppID, token: three, reportedToken: "3", selector: ">weather")
        _ = try store.subscribe(appID: Fixture.fcmAppID, token: fcmToken, reportedToken: "f", selector: ">news/sport")
        // A device of an app nobody registered cannot be delivered to: never queued.
        _ = try store.subscribe(appID: AppID("com.example.gone")!, token: one, reportedToken: "g", selector: ">news/sport")

        let lookup = [">news/sport", ">news/sport//", ">news/", ">news//"]
        XCTAssertEqual(try store.enqueueTopicPush(message, subscribedToAnyOf: lookup, within: nil).queued, 3)
        let claimed = try store.claimDue(limit: 10, now: Int64.max / 2, lease: 1000)
        XCTAssertEqual(Set(claimed.map(\.notification.token)), [one, two, fcmToken])
        XCTAssertEqual(Set(claimed.map(\.source)), ["bridge:topic"])

        let apnsOnly = OutboxMessage(source: "bridge:topic", apns: message.apns)
        XCTAssertEqual(try store.enqueueTopicPush(apnsOnly, subscribedToAnyOf: lookup, within: nil).queued, 2, "FCM devices need an fcm half")
        let fcmOnly = OutboxMessage(source: "bridge:topic", fcm: message.fcm)
        XCTAssertEqual(try store.enqueueTopicPush(fcmOnly, subscribedToAnyOf: lookup, within: nil).queued, 1)
        XCTAssertEqual(try store.enqueueTopicPush(message, subscribedToAnyOf: [">sport"], within: nil).queued, 0)
        XCTAssertEqual(try store.enqueueTopicPush(message, subscribedToAnyOf: [], within: nil).queued, 0)
        XCTAssertEqual(try store.pendingCount(), 6)
    }

    /// A sender key limited to apps: the other apps' subscribers stay unqueued, and counted.
    func testAPublishWithinAnAppScopeLeavesTheOtherAppsDevicesOutAndCountsThem() throws {
        let store = try store()
        _ = try store.subscribe(appID: Fixture.apnsAppID, token: Fixture.apnsToken(1), reportedToken: "1", selector: ">a")
        _ = try store.subscribe(appID: Fixture.apnsAppID, token: Fixture.apnsToken(2), reportedToken: "2", selector: ">a")
        _ = try store.subscribe(appID: Fixture.fcmAppID, token: fcmToken, reportedToken: "f", selector: ">a")
        XCTAssertEqual(
            try store.enqueueTopicPush(message, subscribedToAnyOf: [">a"], within: [Fixture.fcmAppID]),
            ScopedFanOut(queued: 1, leftOut: 2))
        XCTAssertEqual(Set(try store.claimDue(limit: 10, now: Int64.max / 2, lease: 1000).map(\.notification.token)), [fcmToken])
        XCTAssertEqual(
            try store.enqueueTopicPush(message, subscribedToAnyOf: [">a"], within: []), ScopedFanOut(queued: 0, leftOut: 3))
        XCTAssertEqual(try store.pendingCount(), 1, "nothing queued beyond the one in scope")
    }

    func testPruningADeadTokenDropsItsSubscriptions() throws {
        let store = try store()
        let token = Fixture.apnsToken(4)
        _ = try store.subscribe(appID: Fixture.apnsAppID, token: token, reportedToken: "4", selector: ">a")
        let id = try XCTUnwrap(try store.devices().first?.id)
        XCTAssertTrue(try store.pruneDevice(id: id, deadSince: nil))
        let database = try openDatabase()
        XCTAssertEqual(try count("bridge_subscriptions", in: database), 0)
        XCTAssertEqual(try store.enqueueTopicPush(message, subscribedToAnyOf: [">a"], within: nil).queued, 0)
    }
}
