import XCTest

@testable import PushDelivery

final class RetryAfterTests: XCTestCase {
    func testDelaySecondsAndHTTPDates() {
        let now = 784_111_777  // Sun, 06 Nov 1994 08:49:37 GMT
        XCTAssertEqual(RetryAfter.seconds("120", now: now), 120)
        XCTAssertEqual(RetryAfter.seconds(" 5 ", now: now), 5)
        XCTAssertEqual(RetryAfter.seconds("Sun, 06 Nov 1994 08:50:37 GMT", now: now), 60)
        XCTAssertEqual(RetryAfter.seconds("Sun, 06 Nov 1994 08:48:37 GMT", now: now), 0, "a past date means now")
        XCTAssertNil(RetryAfter.seconds("soon", now: now))
        XCTAssertNil(RetryAfter.seconds(nil, now: now))
    }
}
