import XCTest

@testable import MockUpstream

/// Injected faults are used up in order; token faults win over queued ones and may last.
final class FaultPlanTests: XCTestCase {
    func testQueueThenTokenFaults() {
        let plan = FaultPlan()
        XCTAssertNil(plan.take(token: "a"))
        plan.inject(.status(500, reason: "InternalServerError"), forNext: 2)
        plan.inject(.resetConnection, forNext: 1)
        plan.inject(.goAway, forToken: "t", times: 1)
        plan.inject(.delay(.seconds(1)), forToken: "forever", times: nil)

        XCTAssertEqual(plan.take(token: "t"), .goAway)
        XCTAssertEqual(plan.take(token: "t"), .status(500, reason: "InternalServerError"))
        XCTAssertEqual(plan.take(token: "forever"), .delay(.seconds(1)))
        XCTAssertEqual(plan.take(token: "forever"), .delay(.seconds(1)))
        XCTAssertEqual(plan.take(token: nil), .status(500, reason: "InternalServerError"))
        XCTAssertEqual(plan.take(token: nil), .resetConnection)
        XCTAssertNil(plan.take(token: nil))
        plan.clear()
        XCTAssertNil(plan.take(token: "forever"))
    }
}
