@testable import App
import XCTest

final class DoctorFindingTests: XCTestCase {
    func testOneLinePerFindingWithItsVerdictFirst() {
        XCTAssertEqual("\(DoctorFinding.ok("disk", "fine"))", "ok   disk: fine")
        XCTAssertEqual("\(DoctorFinding.problem("socket", "closed"))", "FAIL socket: closed")
        XCTAssertEqual("\(DoctorFinding.warning("clock", "unsynced"))", "WARN clock: unsynced")
        XCTAssertFalse([DoctorFinding.ok("a", "b"), .warning("c", "d")].hasProblem)
        XCTAssertTrue([DoctorFinding.ok("a", "b"), .problem("c", "d")].hasProblem)
    }
}
