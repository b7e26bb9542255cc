import Foundation
import PushAPI
import XCTest

/// The quota of new devices per client address, on a clock the test steps.
final class NewDeviceQuotaTests: XCTestCase {
    let clock = LoginThrottleTests.SteppedClock()

    func quota(_ perHour: Int = 3, capacity: Int = 100_000) -> NewDeviceQuota {
        NewDeviceQuota(limits: .init(perHour: perHour, capacity: capacity), now: clock.now)
    }

    private func charged(_ decision: NewDeviceQuota.Admission) -> NewDeviceQuota.Charge? {
        if case .charged(let charge) = decision { return charge }
        return nil
    }

    func testAnAddressIsRefusedPastItsQuotaUntilItsOldestChargeIsAnHourOld() {
        let quota = quota()
        for _ in 0..<3 {
            XCTAssertNotNil(charged(quota.charge(address: "192.0.2.7")))
            clock.advance(600)
        }
        XCTAssertTrue(quota.isSpent(address: "192.0.2.7"))
        XCTAssertEqual(quota.charge(address: "192.0.2.7"), .refused(retryAfterSeconds: 1_800))
        XCTAssertNotNil(charged(quota.charge(address: "192.0.2.8")), "another address has its own quota")
        clock.advance(1_800)
        XCTAssertNotNil(charged(quota.charge(address: "192.0.2.7")), "the first charge is an hour old")
        XCTAssertEqual(quota.refused, 1)
    }

    func testAChargeGivenBackCountsForNothing() {
        let quota = quota(1)
        let charge = charged(quota.charge(address: "192.0.2.7"))!
        quota.giveBack(charge)
        XCTAssertFalse(quota.isSpent(address: "192.0.2.7"))
        XCTAssertNotNil(charged(quota.charge(address: "192.0.2.7")))
        XCTAssertTrue(quota.isSpent(address: "192.0.2.7"))
    }

    func testOneSlash64AndEachMappedIPv4CallerCountAsOneAddress() {
        let quota = quota(1)
        _ = quota.charge(address: "2001:db8:1:2::a")
        XCTAssertTrue(quota.isSpent(address: "2001:db8:1:2:ffff::1"))
        XCTAssertFalse(quota.isSpent(address: "2001:db8:1:3::a"))
        _ = quota.charge(address: "::ffff:192.0.2.1")
        XCTAssertTrue(quota.isSpent(address: "192.0.2.1"))
        XCTAssertFalse(quota.isSpent(address: "::ffff:192.0.2.2"), "not one bucket for every IPv4 caller")
    }

    /// Past its quota an address still re-registers what is stored: asked only then.
    func testAdmissionAsksTheStoreOnlyForASpentAddress() throws {
        let quota = quota(1)
        var asked = 0
        let first = try quota.admit(address: "192.0.2.7") { asked += 1; return true }
        guard case .charged = first else { return XCTFail("\(first)") }
        XCTAssertEqual(asked, 0, "an address with room is not asked about")
        XCTAssertEqual(try quota.admit(address: "192.0.2.7") { asked += 1; return true }, .stored)
        XCTAssertEqual(try quota.admit(address: "192.0.2.7") { asked += 1; return false }, .refused(retryAfterSeconds: 3_600))
        XCTAssertEqual(asked, 2)
    }

    func testWithoutAQuotaEverythingIsAllowedAndNothingRemembered() {
        let quota = NewDeviceQuota(limits: .init(perHour: nil), now: clock.now)
        for _ in 0..<1_000 { XCTAssertNotNil(charged(quota.charge(address: "192.0.2.7"))) }
        XCTAssertEqual(quota.rememberedAddresses, 0)
    }

    /// Addresses whose hour is over are forgotten, and no more than `capacity` are held.
    func testItsMemoryIsBoundedByTimeAndByCapacity() {
        let quota = quota(3, capacity: 50)
        for index in 0..<40 { _ = quota.charge(address: "10.0.0.\(index)") }
        XCTAssertEqual(quota.rememberedAddresses, 40)
        clock.advance(3_601)
        _ = quota.charge(address: "10.0.1.1")
        XCTAssertEqual(quota.rememberedAddresses, 1)
        for index in 0..<500 {
            _ = quota.charge(address: "10.1.\(index / 250).\(index % 250)")
            XCTAssertLessThanOrEqual(quota.rememberedAddresses, 50)
        }
    }

    /// The /64s of one /48 share the /48's ceiling, and those of one /56 the /56's: another
    /// /48 is not held back, and an IPv4 caller is counted by its address alone.
    func testTheSlash64sOfOnePrefixShareItsCeilings() {
        let quota = NewDeviceQuota(
            limits: .init(perHour: 2, perHourPer56: 3, perHourPer48: 5), now: clock.now)
        XCTAssertNotNil(charged(quota.charge(address: "2001:db8:1:100::1")))
        XCTAssertNotNil(charged(quota.charge(address: "2001:db8:1:101::1")))
        XCTAssertNotNil(charged(quota.charge(address: "2001:db8:1:102::1")))
        XCTAssertEqual(quota.charge(address: "2001:db8:1:1ff::1"), .refused(retryAfterSeconds: 3_600), "the /56 is spent")
        XCTAssertTrue(quota.isSpent(address: "2001:db8:1:1ab::9"))
        XCTAssertNotNil(charged(quota.charge(address: "2001:db8:1:200::1")), "another /56 of the /48")
        XCTAssertNotNil(charged(quota.charge(address: "2001:db8:1:300::1")))
        XCTAssertEqual(quota.charge(address: "2001:db8:1:ff00::1"), .refused(retryAfterSeconds: 3_600), "the /48 is spent")
        XCTAssertNotNil(charged(quota.charge(address: "2001:db8:2:100::1")), "another /48")
        XCTAssertEqual(quota.rememberedNetworks.per48, 2)
        for n in 0..<10 { XCTAssertNotNil(charged(quota.charge(address: "192.0.2.\(n)"))) }
        XCTAssertEqual(quota.rememberedNetworks.per48, 2, "IPv4 callers have no prefix")
        clock.advance(3_600)
        XCTAssertNotNil(charged(quota.charge(address: "2001:db8:1:1ff::1")), "an hour later")
    }

    /// A charge given back leaves the /56's and the /48's counts too.
    func testAChargeGivenBackLeavesEveryPrefix() {
        let quota = NewDeviceQuota(limits: .init(perHour: 5, perHourPer56: 5, perHourPer48: 5), now: clock.now)
        for n in 0..<5 {
            let charge = charged(quota.charge(address: "2001:db8:1:\(n)::1"))!
            quota.giveBack(charge)
        }
        XCTAssertFalse(quota.isSpent(address: "2001:db8:1:9::1"))
    }

    /// A ceiling below the narrower one is raised to it, and 0 in the setting (nil) counts
    /// no prefix.
    func testAPrefixCeilingIsNeverBelowTheNarrowerOne() {
        let limits = NewDeviceQuota.Limits(perHour: 100, perHourPer56: 10, perHourPer48: 50)
        XCTAssertEqual(limits.perHourPer56, 100)
        XCTAssertEqual(limits.perHourPer48, 100)
        let quota = NewDeviceQuota(limits: .init(perHour: 1, perHourPer56: nil, perHourPer48: nil), now: clock.now)
        for n in 0..<300 { XCTAssertNotNil(charged(quota.charge(address: "2001:db8:1:\(n)::1"))) }
    }
}
