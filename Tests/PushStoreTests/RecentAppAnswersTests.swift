import Foundation
import PushCore
import XCTest

@testable import PushStore

/// The short memory of apps: what this store changes it forgets at once, what another
/// connection (the CLI's process) changes is seen once the memory has run out, and an app
/// another connection adds is found at once.
final class RecentAppAnswersTests: StoreTestCase {
    func testAppsChangedThroughTheSameStoreAreSeenAtOnce() throws {
        let store = try makeStore()
        XCTAssertNil(try store.platform(of: Fixture.apnsAppID))
        XCTAssertNil(try store.app(id: Fixture.apnsAppID))
        try store.addApp(Fixture.apnsApp, replacing: false)
        XCTAssertEqual(try store.platform(of: Fixture.apnsAppID), .apns)
        XCTAssertEqual(try store.app(id: Fixture.apnsAppID), Fixture.apnsApp)
        var replaced = Fixture.apnsApp
        replaced.sandbox.toggle()
        try store.addApp(replaced, replacing: true)
        XCTAssertEqual(try store.app(id: Fixture.apnsAppID), replaced)
        XCTAssertTrue(try store.removeApp(id: Fixture.apnsAppID))
        XCTAssertNil(try store.platform(of: Fixture.apnsAppID))
        XCTAssertNil(try store.app(id: Fixture.apnsAppID))
    }

    func testAnotherConnectionsChangeIsSeenAfterTheLifetime() throws {
        let store = try makeStore()
        let other = try makeStore()
        let started = DispatchTime.now().uptimeNanoseconds
        XCTAssertNil(try store.platform(of: Fixture.fcmAppID))
        try other.addApp(Fixture.fcmApp, replacing: false)
        let platformAfterAdd = try store.platform(of: Fixture.fcmAppID)
        // An unknown app is not remembered: one added elsewhere is used at once.
        XCTAssertEqual(try store.app(id: Fixture.fcmAppID), Fixture.fcmApp)
        XCTAssertTrue(try other.removeApp(id: Fixture.fcmAppID))
        let appAfterRemove = try store.app(id: Fixture.fcmAppID)
        // Remembered while the lifetime lasts: the lookups did not go to the database again.
        // Checked only when they did come within it (a stalled machine may take longer).
        if DispatchTime.now().uptimeNanoseconds - started < 900_000_000 {
            XCTAssertNil(platformAfterAdd)
            XCTAssertEqual(appAfterRemove, Fixture.fcmApp)
        }
        Thread.sleep(forTimeInterval: 1.1)
        XCTAssertNil(try store.platform(of: Fixture.fcmAppID))
        XCTAssertNil(try store.app(id: Fixture.fcmAppID))
    }

    func testAnswersAreKeptForTheirLifetimeOnly() throws {
        let clock = ManualNanoseconds()
        let memory = RecentAppAnswers<Platform?>(lifetimeSeconds: 1, now: { clock.now })
        var lookups = 0
        let lookUp = { () -> Platform? in
            lookups += 1
            return .apns
        }
        XCTAssertEqual(memory.answer(for: Fixture.apnsAppID, lookUp: lookUp), .apns)
        clock.now += 999_000_000
        XCTAssertEqual(memory.answer(for: Fixture.apnsAppID, lookUp: lookUp), .apns)
        XCTAssertEqual(lookups, 1)
        clock.now += 1_000_000
        XCTAssertEqual(memory.answer(for: Fixture.apnsAppID, lookUp: lookUp), .apns)
        XCTAssertEqual(lookups, 2)
        memory.forget()
        XCTAssertEqual(memory.answer(for: Fixture.apnsAppID, lookUp: lookUp), .apns)
        XCTAssertEqual(lookups, 3)
    }

    func testAnswersNotToKeepAreLookedUpEachTime() {
        let memory = RecentAppAnswers<Platform?>(lifetimeSeconds: 60)
        var lookups = 0
        for _ in 0..<3 {
            XCTAssertNil(memory.answer(for: Fixture.apnsAppID, keep: { $0 != nil }) { lookups += 1; return nil })
        }
        XCTAssertEqual(lookups, 3)
    }

    func testAFailedLookupIsNotRemembered() throws {
        struct Failure: Error {}
        let memory = RecentAppAnswers<Platform?>(lifetimeSeconds: 60)
        XCTAssertThrowsError(try memory.answer(for: Fixture.apnsAppID) { throw Failure() })
        XCTAssertEqual(memory.answer(for: Fixture.apnsAppID) { .fcm }, .fcm)
    }
}

/// A clock the test moves by hand.
private final class ManualNanoseconds: @unchecked Sendable {
    var now: UInt64 = 1_000_000_000
}
