import PushCore
import XCTest

@testable import PushStore

final class CospaceUserStoreTests: StoreTestCase {
    static let cospaceApp = RegisteredApp(
        id: AppID("TEAM123456.de.cospace.app")!,
        credentials: .apnsToken(
            teamID: "TEAM123456", keyID: "KEY1234567", privateKeyPEM: "-----BEGIN PRIVATE KEY-----"),
        apnsTopic: "de.cospace.app", sandbox: false)

    func registration(
        _ seed: UInt8, app: String = "TEAM123456.de.cospace.app", sandbox: Bool? = nil, topic: String? = nil
    )
        -> CospaceAPNsRegistration
    {
        let token = Fixture.apnsToken(seed)
        let bundle = String(app.drop { $0 != "." }.dropFirst())
        return CospaceAPNsRegistration(
            token: token, reportedToken: token.hex, applicationID: app, sandbox: sandbox, apnsTopic: topic ?? bundle)
    }

    func testUsersAreAddedListedRenamedAndRemoved() throws {
        let store = try makeStore()
        let alice = try store.addUser(name: "alice", passwordHash: "h1")
        XCTAssertNotNil(UUID(uuidString: alice.id))
        XCTAssertEqual(alice.id, alice.id.lowercased())
        XCTAssertThrowsError(try store.addUser(name: "alice", passwordHash: "h2")) {
            XCTAssertEqual($0 as? CospaceUserError, .duplicateName("alice"))
        }
        XCTAssertEqual(try store.user(named: "alice"), alice)
        XCTAssertEqual(try store.user(id: alice.id), alice)
        XCTAssertTrue(try store.setPasswordHash(name: "alice", passwordHash: "h3"))
        XCTAssertEqual(try store.user(named: "alice")?.passwordHash, "h3")
        XCTAssertFalse(try store.setPasswordHash(name: "nobody", passwordHash: "h"))
        XCTAssertEqual(try store.users().map(\.name), ["alice"])
        XCTAssertTrue(try store.removeUser(name: "alice"))
        XCTAssertFalse(try store.removeUser(name: "alice"))
        XCTAssertEqual(try store.users(), [])
    }

    func testAnUnknownAppStoresNothing() throws {
        let store = try makeStore()
        let alice = try store.addUser(name: "alice", passwordHash: "h")
        XCTAssertFalse(try store.addAPNsToken(userID: alice.id, registration(1)))
        XCTAssertEqual(try store.devices(), [])
        // An FCM app of that id is not an APNs app.
        var fcm = Fixture.fcmApp
        fcm.id = AppID("TEAM123456.de.cospace.app")!
        fcm.appKey = nil
        try store.addApp(fcm, replacing: false)
        XCTAssertFalse(try store.addAPNsToken(userID: alice.id, registration(1)))
        XCTAssertEqual(try store.devices(), [])
    }

    func testAnAppIsFoundByItsIDOrByTeamAndTopic() throws {
        let store = try makeStore()
        let alice = try store.addUser(name: "alice", passwordHash: "h")
        var named = Self.cospaceApp
        named.id = AppID("cospace-ios")!
        try store.addApp(named, replacing: false)
        XCTAssertTrue(try store.addAPNsToken(userID: alice.id, registration(1, sandbox: true)))
        XCTAssertEqual(try store.devices().map(\.appID.rawValue), ["cospace-ios"])
        XCTAssertEqual(
            try store.registrations(userID: alice.id).apnsTokens,
            [
                CospaceAPNsToken(
                    token: Fixture.apnsToken(1), applicationID: "TEAM123456.de.cospace.app", sandbox: true,
                    apnsTopic: nil)
            ])
        XCTAssertFalse(try store.addAPNsToken(userID: alice.id, registration(2, app: "OTHERTEAM1.de.cospace.app")))
    }

    func testRegistrationsAreIsolatedAndOwnerlessDevicesGo() throws {
        let store = try makeStore()
        try store.addApp(Self.cospaceApp, replacing: false)
        let alice = try store.addUser(name: "alice", passwordHash: "h")
        let bob = try store.addUser(name: "bob", passwordHash: "h")
        XCTAssertTrue(try store.addAPNsToken(userID: alice.id, registration(1, topic: "de.cospace.app.voip")))
        try store.addRegistrationID(userID: alice.id, appID: Fixture.fcmAppID, registrationID: "registration-1")
        try store.addRegistrationID(userID: bob.id, appID: Fixture.fcmAppID, registrationID: "registration-1")
        XCTAssertEqual(
            try store.registrations(userID: bob.id), CospaceRegistrations(registrationIDs: ["registration-1"]))
        XCTAssertEqual(
            try store.registrations(userID: alice.id),
            CospaceRegistrations(
                registrationIDs: ["registration-1"],
                apnsTokens: [
                    CospaceAPNsToken(
                        token: Fixture.apnsToken(1), applicationID: Self.cospaceApp.id.rawValue, sandbox: false,
                        apnsTopic: "de.cospace.app.voip")
                ]))
        XCTAssertFalse(try store.removeAPNsToken(userID: bob.id, token: Fixture.apnsToken(1)))
        XCTAssertEqual(try store.devices().count, 2)
        XCTAssertTrue(
            try store.removeRegistrationID(userID: alice.id, appID: Fixture.fcmAppID, registrationID: "registration-1"))
        XCTAssertEqual(try store.devices().count, 2, "bob still owns the registration id")
        XCTAssertTrue(try store.removeUser(name: "bob"))
        XCTAssertEqual(try store.devices().count, 1)
        XCTAssertEqual(try store.deviceIDs(userID: alice.id, within: nil)?.inScope.count, 1)
        XCTAssertNil(try store.deviceIDs(userID: bob.id, within: nil))
        XCTAssertTrue(try store.removeAPNsToken(userID: alice.id, token: Fixture.apnsToken(1)))
        XCTAssertEqual(try store.devices(), [])
    }

    func testADeviceSharedWithAnotherDialectStays() throws {
        let store = try makeStore()
        var app = Self.cospaceApp
        app.id = AppID("TEAM123456.de.cospace.app")!
        try store.addApp(app, replacing: false)
        let alice = try store.addUser(name: "alice", passwordHash: "h")
        XCTAssertTrue(try store.addAPNsToken(userID: alice.id, registration(1)))
        try store.saveAccountTokens(
            selector: "s", username: nil, tokens: [Fixture.channelToken(.calls, seed: 1, app: app.id)])
        XCTAssertTrue(try store.removeUser(name: "alice"))
        XCTAssertEqual(try store.devices().count, 1)
    }

    func testATokenMovedToAnotherAppReplacesTheOldLink() throws {
        let store = try makeStore()
        try store.addApp(Self.cospaceApp, replacing: false)
        var other = Self.cospaceApp
        other.id = AppID("TEAM123456.de.cospace.other")!
        other.apnsTopic = "de.cospace.other"
        try store.addApp(other, replacing: false)
        let alice = try store.addUser(name: "alice", passwordHash: "h")
        XCTAssertTrue(try store.addAPNsToken(userID: alice.id, registration(1)))
        XCTAssertTrue(try store.addAPNsToken(userID: alice.id, registration(1, app: "TEAM123456.de.cospace.other")))
        XCTAssertEqual(try store.devices().map(\.appID.rawValue), ["TEAM123456.de.cospace.other"])
    }

    /// The outbox hands each device's own sandbox and topic to delivery.
    func testQueuedEventsCarryEachDevicesSandboxAndTopic() throws {
        let store = try makeStore()
        try store.addApp(Self.cospaceApp, replacing: false)
        let alice = try store.addUser(name: "alice", passwordHash: "h")
        XCTAssertTrue(
            try store.addAPNsToken(userID: alice.id, registration(1, sandbox: true, topic: "de.cospace.app.voip")))
        XCTAssertTrue(try store.addAPNsToken(userID: alice.id, registration(2)))
        let ids = try XCTUnwrap(store.deviceIDs(userID: alice.id, within: nil)).inScope
        let message = OutboxMessage(source: "cospace:event", apns: APNsMessage(payload: Array("{}".utf8)))
        XCTAssertEqual(try store.enqueue(message, deviceIDs: ids), 2)
        let claimed = try store.claimDue(limit: 10, now: Int64.max / 2, lease: 1000)
            .sorted { $0.notification.token.bytes[0] < $1.notification.token.bytes[0] }
        XCTAssertEqual(claimed.map(\.notification.sandbox), [true, nil])
        XCTAssertEqual(claimed.map(\.notification.apns?.topic), ["de.cospace.app.voip", "de.cospace.app"])
    }

    /// A sender key limited to apps sees the user's devices of those apps, and a count of the rest.
    func testDeviceIDsWithinAnAppScopeCountTheOthers() throws {
        let store = try makeStore()
        try store.addApp(Self.cospaceApp, replacing: false)
        let alice = try store.addUser(name: "alice", passwordHash: "h")
        XCTAssertTrue(try store.addAPNsToken(userID: alice.id, registration(1)))
        try store.addRegistrationID(userID: alice.id, appID: Fixture.fcmAppID, registrationID: "registration-1")
        let all = try XCTUnwrap(store.deviceIDs(userID: alice.id, within: nil))
        XCTAssertEqual(all.inScope.count, 2)
        XCTAssertEqual(all.leftOut, 0)
        let fcmOnly = try XCTUnwrap(store.deviceIDs(userID: alice.id, within: [Fixture.fcmAppID]))
        XCTAssertEqual(fcmOnly.inScope.count, 1)
        XCTAssertEqual(fcmOnly.leftOut, 1)
        XCTAssertEqual(try store.deviceIDs(userID: alice.id, within: []), ScopedDevices(inScope: [], leftOut: 2))
    }
}
