import Foundation
import MockUpstream
import XCTest

/// Injected faults: statuses with Retry-After, delays, connection resets and GOAWAY.
final class APNsFaultTests: XCTestCase {
    private var apns: MockAPNs!
    private var jwt = ""

    override func setUpWithError() throws {
        apns = try startAPNs()
        jwt = try APNsTestKey.token()
    }

    override func tearDown() {
        apns.shutdown()
    }

    func testStatusFaultsApplyToTheNextRequestsInOrder() throws {
        apns.inject(.status(503, reason: "ServiceUnavailable", retryAfter: 7), forNext: 2)
        apns.inject(.status(429, reason: "TooManyRequests"))
        apns.inject(.status(500, reason: "InternalServerError"))

        let first = try apns.send(providerToken: jwt)
        XCTAssertEqual(first.status, 503)
        XCTAssertEqual(first.reason, "ServiceUnavailable")
        XCTAssertEqual(first.headers["retry-after"], "7")
        XCTAssertEqual(try apns.send(providerToken: jwt).status, 503)
        let throttled = try apns.send(providerToken: jwt)
        XCTAssertEqual(throttled.status, 429)
        XCTAssertEqual(throttled.reason, "TooManyRequests")
        XCTAssertNil(throttled.headers["retry-after"])
        XCTAssertEqual(try apns.send(providerToken: jwt).reason, "InternalServerError")
        XCTAssertEqual(try apns.send(providerToken: jwt).status, 200, "faults used up")
    }

    func testTokenFaultsHitOnlyThatToken() throws {
        apns.inject(.status(500, reason: "InternalServerError"), forToken: deviceToken(2), times: 1)
        XCTAssertEqual(try apns.send(to: deviceToken(1), providerToken: jwt).status, 200)
        XCTAssertEqual(try apns.send(to: deviceToken(2), providerToken: jwt).status, 500)
        XCTAssertEqual(try apns.send(to: deviceToken(2), providerToken: jwt).status, 200)

        apns.inject(.status(503, reason: "Shutdown"), forToken: deviceToken(3))
        XCTAssertEqual(try apns.send(to: deviceToken(3), providerToken: jwt).status, 503)
        XCTAssertEqual(try apns.send(to: deviceToken(3), providerToken: jwt).status, 503, "until cleared")
        apns.clearFaults()
        XCTAssertEqual(try apns.send(to: deviceToken(3), providerToken: jwt).status, 200)
    }

    func testDelayAnswersLate() throws {
        apns.inject(.delay(.milliseconds(700)))
        let start = Date()
        let slow = try apns.send(providerToken: jwt)
        XCTAssertEqual(slow.status, 200)
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(start), 0.7)

        apns.inject(.delay(.seconds(5)))
        let timedOut = try apns.send(providerToken: jwt, extraArguments: ["--max-time", "1"])
        XCTAssertEqual(timedOut.exitCode, 28, "curl: operation timed out")
    }

    func testResetClosesTheConnectionWithoutAnAnswer() throws {
        apns.inject(.resetConnection)
        let reset = try apns.send(providerToken: jwt)
        XCTAssertNotEqual(reset.exitCode, 0)
        XCTAssertEqual(reset.status, 0, reset.stderr)
        XCTAssertEqual(apns.log.counters.connectionResets, 1)
        XCTAssertEqual(apns.requests.first?.outcome, .connectionReset)
        XCTAssertEqual(try apns.send(providerToken: jwt).status, 200, "the next connection works")
    }

    func testGoAwayRefusesTheStream() throws {
        apns.inject(.goAway)
        let response = try apns.send(providerToken: jwt)
        XCTAssertNotEqual(response.status, 200)
        XCTAssertEqual(apns.log.counters.goAways, 1)
        XCTAssertEqual(apns.requests.first?.outcome, .goAway)
        XCTAssertEqual(try apns.send(providerToken: jwt).status, 200)
    }
}
