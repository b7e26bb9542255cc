import Foundation
import PushCore
import XCTest

@testable import PushStore

/// The Beams device API's storage, on both engines: registrations that resume, interest
/// sets, users and their limit, publishes to users, and sender keys that keep their secret.
final class BeamsDeviceStoreTests: StoreTestCase {
    var store: (any StoreUnderTest)!
    let app = Fixture.apnsAppID

    override func setUpWithError() throws {
        try super.setUpWithError()
        store = try makeStore()
        var registered = Fixture.apnsApp
        registered.appKey = "ios-key"
        try store.addApp(registered, replacing: false)
    }

    @discardableResult
    func register(_ id: String, seed: UInt8, metadata: String? = nil) throws -> BeamsRegistration {
        let token = Fixture.apnsToken(seed)
        return try store.registerBeamsDevice(
            newID: id, appID: app, token: token, reportedToken: token.hex, metadata: metadata)
    }

    func testARegisteredTokenKeepsItsClientInterestsAndMetadata() throws {
        XCTAssertEqual(
            try register("d1", seed: 1, metadata: #"{"sdkVersion":"4.0.0"}"#),
            BeamsRegistration(id: "d1", interests: []))
        XCTAssertTrue(try store.replaceBeamsInterests(clientID: "d1", interests: ["b", "a-z"]))
        XCTAssertEqual(try register("d2", seed: 1), BeamsRegistration(id: "d1", interests: ["a-z", "b"]))
        XCTAssertEqual(try store.beamsDevice(id: "d1")?.metadata, #"{"sdkVersion":"4.0.0"}"#, "kept when none is sent")
        XCTAssertNil(try store.beamsDevice(id: "d2"))
        // An old-API client of the same token is the same device: its id comes back.
        let token = Fixture.apnsToken(2)
        try store.addBeamsClient(id: "old", appID: app, token: token, reportedToken: token.hex)
        XCTAssertEqual(try register("d3", seed: 2).id, "old")
        XCTAssertTrue(try store.setBeamsDeviceMetadata(id: "old", metadata: "{}"))
        XCTAssertFalse(try store.setBeamsDeviceMetadata(id: "nope", metadata: "{}"))
        XCTAssertEqual(try store.devices().count, 2)
    }

    func testInterestSetsReplaceAndPage() throws {
        try register("d1", seed: 1)
        XCTAssertTrue(try store.replaceBeamsInterests(clientID: "d1", interests: ["c", "a", "b"]))
        XCTAssertEqual(try store.beamsInterests(clientID: "d1", after: nil, limit: 2), ["a", "b"])
        XCTAssertEqual(try store.beamsInterests(clientID: "d1", after: "b", limit: 2), ["c"])
        XCTAssertTrue(try store.replaceBeamsInterests(clientID: "d1", interests: ["z"]))
        XCTAssertEqual(try store.beamsInterests(clientID: "d1", after: nil, limit: 10), ["z"])
        XCTAssertFalse(try store.replaceBeamsInterests(clientID: "nope", interests: ["a"]))
        XCTAssertNil(try store.beamsInterests(clientID: "nope", after: nil, limit: 10))
    }

    func testUsersBindOnceUpToTheLimitAndGoWithTheirDevices() throws {
        try register("d1", seed: 1)
        try register("d2", seed: 2)
        XCTAssertEqual(try store.setBeamsUser(clientID: "d1", userID: "alice"), .done)
        XCTAssertEqual(try store.setBeamsUser(clientID: "d1", userID: "alice"), .done)
        XCTAssertEqual(try store.setBeamsUser(clientID: "d1", userID: "bob"), .otherUser)
        XCTAssertEqual(try store.setBeamsUser(clientID: "nope", userID: "bob"), .unknownDevice)
        XCTAssertEqual(try store.setBeamsUser(clientID: "d2", userID: "bob"), .done)
        XCTAssertEqual(try store.beamsDevice(id: "d1")?.userID, "alice")

        let message = OutboxMessage(source: "beams:users", apns: APNsMessage(payload: Array("{}".utf8)))
        XCTAssertEqual(try store.publishToUsers(appIDs: [app], users: ["alice", "carol"], message: message), 1)
        XCTAssertEqual(try store.publishToUsers(appIDs: [Fixture.fcmAppID], users: ["alice"], message: message), 0)
        let claimed = try store.claimDue(limit: 10, now: Int64.max / 2, lease: 1_000)
        XCTAssertEqual(claimed.map(\.notification.token), [Fixture.apnsToken(1)])

        XCTAssertEqual(try store.deleteBeamsUser(appIDs: [app], userID: "alice"), 1)
        XCTAssertNil(try store.beamsDevice(id: "d1"))
        XCTAssertEqual(try store.devices().map(\.token), [Fixture.apnsToken(2)])
        XCTAssertEqual(try store.deleteBeamsUser(appIDs: [app], userID: "alice"), 0)
        XCTAssertTrue(try store.deleteBeamsDevice(id: "d2"))
        XCTAssertFalse(try store.deleteBeamsDevice(id: "d2"))
        XCTAssertEqual(try store.devices().count, 0)
    }

    func testAUserHasAtMostAHundredDevicesOfAnApp() throws {
        for n in 0..<BeamsLimits.devicesPerUser {
            try register("d\(n)", seed: UInt8(n + 1))
            XCTAssertEqual(try store.setBeamsUser(clientID: "d\(n)", userID: "carol"), .done)
        }
        try register("extra", seed: 200)
        XCTAssertEqual(try store.setBeamsUser(clientID: "extra", userID: "carol"), .tooManyDevices)
        XCTAssertNil(try store.beamsDevice(id: "extra")?.userID)
    }

    func testKeysMadeWithASecretVerifyBeamsTokens() throws {
        try store.addSenderKey(name: "old", digest: "d-old")
        try store.addSenderKey(name: "new", digest: "d-new", scope: SenderScope(dialects: [.beams]), secret: "pgk_new")
        try store.addSenderKey(name: "gone", digest: "d-gone", scope: .unrestricted, secret: "pgk_gone")
        XCTAssertTrue(try store.revokeSenderKey(name: "gone"))
        XCTAssertEqual(try store.beamsTokenSecrets().map(\.secret), ["pgk_new"])
        XCTAssertEqual(try store.beamsTokenSecrets().first?.key.scope.dialects, [.beams])
        XCTAssertEqual(
            try store.senderKeys().map { "\($0.name) \($0.verifiesBeamsTokens)" },
            ["gone true", "new true", "old false"])
        XCTAssertEqual(try store.validSenderKey(digest: "d-new")?.verifiesBeamsTokens, true)
        XCTAssertThrowsError(try store.addSenderKey(name: "new", digest: "x", scope: .unrestricted, secret: "y"))
    }
}
