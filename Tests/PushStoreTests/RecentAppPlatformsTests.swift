import Foundation
import PushCore
import XCTest

@testable import PushStore

/// The short memory of app platforms: what this store changes it forgets at once, what another
/// connection (the CLI's process) changes is seen once the memory has run out.
final class RecentAppPlatformsTests: StoreTestCase {
    func testAppsChangedThroughTheSameStoreAreSeenAtOnce() throws {
        let store = try makeStore()
        XCTAssertNil(try store.platform(of: Fixture.apnsAppID))
        try store.addApp(Fixture.apnsApp, replacing: false)
        XCTAssertEqual(try store.platform(of: Fixture.apnsAppID), .apns)
        XCTAssertTrue(try store.removeApp(id: Fixture.apnsAppID))
        XCTAssertNil(try store.platform(of: Fixture.apnsAppID))
    }

    func testAnotherConnectionsChangeIsSeenAfterTheLifetime() throws {
        let store = try makeStore()
        let other = try makeStore()
        XCTAssertNil(try store.platform(of: Fixture.fcmAppID))
        try other.addApp(Fixture.fcmApp, replacing: false)
        // Remembered: the lookup did not go to the database again.
        XCTAssertNil(try store.platform(of: Fixture.fcmAppID))
        Thread.sleep(forTimeInterval: 1.1)
        XCTAssertEqual(try store.platform(of: Fixture.fcmAppID), .fcm)
    }

    func testAnswersAreKeptForTheirLifetimeOnly() throws {
        let memory = RecentAppPlatforms(lifetimeSeconds: 0.05)
        var lookups = 0
        let lookUp = { () -> Platform? in
            lookups += 1
            return .apns
        }
        XCTAssertEqual(memory.platform(of: Fixture.apnsAppID, lookUp: lookUp), .apns)
        XCTAssertEqual(memory.platform(of: Fixture.apnsAppID, lookUp: lookUp), .apns)
        XCTAssertEqual(lookups, 1)
        Thread.sleep(forTimeInterval: 0.1)
        XCTAssertEqual(memory.platform(of: Fixture.apnsAppID, lookUp: lookUp), .apns)
        XCTAssertEqual(lookups, 2)
        memory.forget()
        XCTAssertEqual(memory.platform(of: Fixture.apnsAppID, lookUp: lookUp), .apns)
        XCTAssertEqual(lookups, 3)
    }

    func testAFailedLookupIsNotRemembered() throws {
        struct Failure: Error {}
        let memory = RecentAppPlatforms(lifetimeSeconds: 60)
        XCTAssertThrowsError(try memory.platform(of: Fixture.apnsAppID) { throw Failure() })
        XCTAssertEqual(memory.platform(of: Fixture.apnsAppID) { .fcm }, .fcm)
    }
}
