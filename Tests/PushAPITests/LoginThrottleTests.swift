import Foundation
@testable import PushAPI
import XCTest

/// The login throttle on a clock the test steps: limits per address and per user name, the
/// Retry-After it gives, what a success resets, and that an attacker cannot lock a user out.
final class LoginThrottleTests: XCTestCase {
    /// A clock that moves only when told.
    final class SteppedClock: @unchecked Sendable {
        private let lock = NSLock()
        private var seconds = 1000.0
        func advance(_ by: Double) { lock.withLock { seconds += by } }
        var now: @Sendable () -> Double { { [self] in lock.withLock { seconds } } }
    }

    let clock = SteppedClock()

    func throttle(failures: Int = 3) -> LoginThrottle {
        LoginThrottle(limits: .init(failuresPerWindow: failures, windowSeconds: 60), now: clock.now)
    }

    private func allowed(_ decision: LoginThrottle.Decision) -> LoginThrottle.Attempt? {
        if case .allowed(let attempt) = decision { return attempt }
        return nil
    }

    func testAnAddressIsRefusedPastItsFailuresUntilTheOldestExpires() {
        let throttle = throttle()
        for user in ["a", "b", "c"] {
            XCTAssertNotNil(allowed(throttle.begin(address: "192.0.2.7", user: user)))
            clock.advance(10)
        }
        XCTAssertEqual(throttle.begin(address: "192.0.2.7", user: "d"), .refused(retryAfterSeconds: 30))
        XCTAssertTrue(throttle.refuses(address: "192.0.2.7", user: "d"))
        XCTAssertNotNil(allowed(throttle.begin(address: "192.0.2.8", user: "d")), "another address has its own count")
        clock.advance(30)
        XCTAssertNotNil(allowed(throttle.begin(address: "192.0.2.7", user: "d")), "the first failure expired")
    }

    func testAUserNameIsRefusedPastItsFailuresFromAnyAddress() {
        let throttle = throttle()
        for address in ["192.0.2.1", "192.0.2.2", "192.0.2.3"] {
            XCTAssertNotNil(allowed(throttle.begin(address: address, user: "alice")))
        }
        XCTAssertEqual(throttle.begin(address: "192.0.2.4", user: "alice"), .refused(retryAfterSeconds: 60))
        XCTAssertNotNil(allowed(throttle.begin(address: "192.0.2.4", user: "bob")))
    }

    /// Attempts under way count: a burst is not let through before the first of it fails.
    func testAttemptsUnderWayCountAndASuccessGivesItsOwnBack() {
        let throttle = throttle()
        let first = allowed(throttle.begin(address: "192.0.2.7", user: "alice"))!
        _ = throttle.begin(address: "192.0.2.7", user: "alice")
        _ = throttle.begin(address: "192.0.2.7", user: "alice")
        XCTAssertTrue(throttle.refuses(address: "192.0.2.7", user: "alice"))
        throttle.succeeded(first)
        XCTAssertNotNil(allowed(throttle.begin(address: "192.0.2.7", user: "alice")), "the success was no failure")
    }

    func testASuccessResetsTheUserNamesCount() {
        let throttle = throttle()
        _ = throttle.begin(address: "192.0.2.1", user: "alice")
        _ = throttle.begin(address: "192.0.2.2", user: "alice")
        let right = allowed(throttle.begin(address: "192.0.2.3", user: "alice"))!
        throttle.succeeded(right)
        XCTAssertNotNil(allowed(throttle.begin(address: "192.0.2.4", user: "alice")))
        XCTAssertNotNil(allowed(throttle.begin(address: "192.0.2.5", user: "alice")))
    }

    /// An attacker exhausting alice's count from elsewhere does not keep alice out of the
    /// address she logged in from before; from a new address she waits one window at most.
    func testAnAttackerCannotLockAUserOutOfHerOwnAddress() {
        let throttle = throttle()
        throttle.succeeded(allowed(throttle.begin(address: "198.51.100.9", user: "alice"))!)
        clock.advance(5)
        for address in ["203.0.113.1", "203.0.113.2", "203.0.113.3"] {
            _ = throttle.begin(address: address, user: "alice")
        }
        XCTAssertEqual(throttle.begin(address: "203.0.113.4", user: "alice"), .refused(retryAfterSeconds: 60))
        XCTAssertNotNil(allowed(throttle.begin(address: "198.51.100.9", user: "alice")), "her own address")
        clock.advance(60)
        XCTAssertNotNil(allowed(throttle.begin(address: "203.0.113.4", user: "alice")), "a window later")
    }

    func testIPv6ClientsCountPerSlash64() {
        let throttle = throttle()
        _ = throttle.begin(address: "2001:db8:1:2::a", user: "u1")
        _ = throttle.begin(address: "2001:db8:1:2:ffff:1:2:3", user: "u2")
        _ = throttle.begin(address: "2001:DB8:1:2:0:0:0:b", user: "u3")
        XCTAssertTrue(throttle.refuses(address: "2001:db8:1:2::c", user: "u4"))
        XCTAssertFalse(throttle.refuses(address: "2001:db8:1:3::a", user: "u4"))
        _ = throttle.begin(address: "::ffff:192.0.2.1", user: "u5")
        _ = throttle.begin(address: "192.0.2.1", user: "u6")
        _ = throttle.begin(address: "192.0.2.1", user: "u7")
        XCTAssertTrue(
            throttle.refuses(address: "::ffff:192.0.2.1", user: "u8"), "a mapped IPv4 address is that address")
    }

    func testACancelledAttemptCountsForNothing() {
        let throttle = throttle(failures: 1)
        let attempt = allowed(throttle.begin(address: "192.0.2.7", user: "alice"))!
        throttle.cancelled(attempt)
        XCTAssertNotNil(allowed(throttle.begin(address: "192.0.2.7", user: "alice")))
    }

    /// Mapped IPv4 in every spelling a front server might pass: each is its IPv4 address,
    /// not one /64 that every IPv4 caller of a dual-stack listener would share.
    func testEveryIPv4CallerOfADualStackListenerHasItsOwnCount() {
        let throttle = throttle(failures: 1)
        _ = throttle.begin(address: "::ffff:192.0.2.1", user: "u1")
        XCTAssertFalse(throttle.refuses(address: "::ffff:192.0.2.2", user: "u2"), "another IPv4 caller")
        XCTAssertTrue(throttle.refuses(address: "0:0:0:0:0:ffff:c000:201", user: "u2"), "192.0.2.1 in hex")
        XCTAssertTrue(throttle.refuses(address: "192.0.2.1", user: "u2"))
    }

    /// Entries go once their window is over, long before the tables are full: a flood of
    /// names is forgotten a window after it stops.
    func testEntriesExpireByTimeWithoutReachingCapacity() {
        let throttle = throttle()
        for index in 0..<500 {
            _ = throttle.begin(address: "10.0.\(index / 250).\(index % 250)", user: "name-\(index)")
        }
        let right = allowed(throttle.begin(address: "198.51.100.9", user: "alice"))!
        throttle.succeeded(right)
        XCTAssertEqual(
            throttle.remembered, .init(addresses: 500, users: 500, knownAddresses: 1), "alice's success is no failure")
        clock.advance(61)
        _ = throttle.begin(address: "203.0.113.1", user: "bob")
        XCTAssertEqual(
            throttle.remembered, .init(addresses: 1, users: 1, knownAddresses: 1),
            "the expired failures went; alice's known address stays its week")
        clock.advance(7 * 86_400)
        _ = throttle.begin(address: "203.0.113.2", user: "carol")
        XCTAssertEqual(throttle.remembered, .init(addresses: 1, users: 1, knownAddresses: 0))
    }

    /// Under a spray of live names, no table passes its capacity.
    func testTablesStayWithinTheirCapacity() {
        let throttle = LoginThrottle(
            limits: .init(failuresPerWindow: 1_000, windowSeconds: 60, capacity: 100), now: clock.now)
        for index in 0..<1_000 {
            _ = throttle.begin(address: "10.1.\(index / 250).\(index % 250)", user: "spray-\(index)")
            let remembered = throttle.remembered
            XCTAssertLessThanOrEqual(remembered.addresses, 100)
            XCTAssertLessThanOrEqual(remembered.users, 100)
        }
    }

    /// A user name is kept as a digest of 16 bytes, whatever its length; names differing only
    /// after a long common start are still told apart.
    func testUserNamesAreKeptAsFixedSizeDigests() {
        XCTAssertEqual(MemoryLayout<LoginThrottle.UserNameKey>.size, 16)
        let prefix = String(repeating: "x", count: 6_000)
        XCTAssertEqual(LoginThrottle.UserNameKey(prefix + "a"), LoginThrottle.UserNameKey(prefix + "a"))
        XCTAssertNotEqual(LoginThrottle.UserNameKey(prefix + "a"), LoginThrottle.UserNameKey(prefix + "b"))
        let throttle = throttle(failures: 1)
        _ = throttle.begin(address: "192.0.2.1", user: prefix + "a")
        XCTAssertTrue(throttle.refuses(address: "192.0.2.2", user: prefix + "a"))
        XCTAssertFalse(throttle.refuses(address: "192.0.2.2", user: prefix + "b"))
    }

    /// An attacker guessing alice's password sprays other names from other addresses to fill
    /// the tables: alice's failures survive it, whatever the spray's size. While every name
    /// held is live a new name is refused, not a held one forgotten; once the spray's failures
    /// expire, new names get in again, while alice's stay counted.
    func testASprayOfNamesNeverWipesAUsersFailures() {
        let throttle = LoginThrottle(
            limits: .init(failuresPerWindow: 3, windowSeconds: 60, capacity: 10), now: clock.now)
        for n in 1...3 { XCTAssertNotNil(allowed(throttle.begin(address: "192.0.2.\(n)", user: "alice"))) }
        XCTAssertTrue(throttle.refuses(address: "192.0.2.99", user: "alice"))
        clock.advance(1)
        var refusedNames = 0
        for n in 0..<1_000 {
            if allowed(throttle.begin(address: "10.0.\(n / 250).\(n % 250)", user: "spray-\(n)")) == nil {
                refusedNames += 1
            }
            XCTAssertLessThanOrEqual(throttle.remembered.users, 10)
            XCTAssertLessThanOrEqual(throttle.remembered.addresses, 10)
        }
        XCTAssertEqual(refusedNames, 1_000 - 9, "the names table was full of live names: nine fitted")
        XCTAssertEqual(
            throttle.begin(address: "198.51.100.1", user: "alice"), .refused(retryAfterSeconds: 59),
            "alice's count survived the spray")
        XCTAssertEqual(throttle.begin(address: "198.51.100.2", user: "bob"), .refused(retryAfterSeconds: 59))

        // A second before the window of alice's failures ends, they still count; then every
        // failure held is over, and new names get in again.
        clock.advance(58)
        XCTAssertTrue(throttle.refuses(address: "198.51.100.3", user: "alice"))
        clock.advance(2)
        XCTAssertNotNil(allowed(throttle.begin(address: "198.51.100.4", user: "dave")))
        XCTAssertEqual(throttle.remembered.users, 1)
    }

    /// A full names table of live names still lets a user in from the address she logged in
    /// from: only new names from unknown addresses wait.
    func testAKnownAddressLogsInWhileTheNamesTableIsFull() {
        let throttle = LoginThrottle(
            limits: .init(failuresPerWindow: 3, windowSeconds: 60, capacity: 4), now: clock.now)
        throttle.succeeded(allowed(throttle.begin(address: "192.0.2.1", user: "carol"))!)
        for n in 0..<4 { _ = throttle.begin(address: "10.0.0.\(n)", user: "spray-\(n)") }
        XCTAssertTrue(throttle.refuses(address: "192.0.2.2", user: "carol"), "an unknown address waits")
        let attempt = allowed(throttle.begin(address: "192.0.2.1", user: "carol"))
        XCTAssertNotNil(attempt, "her own address does not")
        throttle.cancelled(attempt!)
        XCTAssertEqual(throttle.remembered.users, 4, "the spray's names were kept")
    }
}
