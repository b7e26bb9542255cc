import Foundation
import PushCore
import XCTest

@testable import PushDelivery

/// Every push service answer → what the client does with it.
final class WebPushVerdictTests: XCTestCase {
    private func verdict(
        _ status: Int, body: String = "", headers: [HTTPHeader] = []
    ) -> WebPushVerdict {
        WebPushVerdict.interpret(
            .success(UpstreamResponse(status: status, headers: headers, body: Array(body.utf8))), now: 1_000)
    }

    private func autopush(_ status: Int, errno: Int, _ message: String) -> String {
        #"{"code":\#(status),"errno":\#(errno),"error":"x","message":"\#(message)"}"#
    }

    func testDeliveredWithLocation() {
        XCTAssertEqual(
            verdict(201, headers: [HTTPHeader("location", "https://push.test/m/1")]),
            .delivered(location: "https://push.test/m/1"))
        XCTAssertEqual(verdict(202), .delivered(location: nil))
    }

    func testGoneSubscriptions() {
        XCTAssertEqual(
            verdict(410, body: autopush(410, errno: 103, "subscription is gone")),
            .gone(reason: "Gone: subscription is gone (errno 103)"))
        XCTAssertEqual(verdict(404, body: "Not Found\nmore"), .gone(reason: "NotFound: Not Found"))
    }

    func testSendersFaults() {
        XCTAssertEqual(
            verdict(413, body: autopush(413, errno: 104, "Body too large")),
            .rejected(status: 413, reason: "PayloadTooLarge: Body too large (errno 104)"))
        XCTAssertEqual(
            verdict(400, body: autopush(400, errno: 111, "Missing TTL header")),
            .rejected(status: 400, reason: "BadRequest: Missing TTL header (errno 111)"))
        XCTAssertEqual(
            verdict(403, body: #"{"reason":"BadJwtToken"}"#),
            .credentialsRefused(status: 403, reason: "Forbidden: BadJwtToken"))
        XCTAssertEqual(verdict(401), .credentialsRefused(status: 401, reason: "Unauthorized: HTTP 401"))
        XCTAssertEqual(verdict(405, body: "nope"), .rejected(status: 405, reason: "Refused: HTTP 405 nope"))
    }

    func testRetriesWithRetryAfter() {
        XCTAssertEqual(
            verdict(429, body: "slow down", headers: [HTTPHeader("retry-after", "30")]),
            .retryLater(reason: "TooManyRequests: slow down", afterSeconds: 30))
        XCTAssertEqual(
            verdict(503, headers: [HTTPHeader("retry-after", "7")]),
            .retryLater(reason: "ServiceUnavailable: HTTP 503 HTTP 503", afterSeconds: 7))
        XCTAssertEqual(
            WebPushVerdict.interpret(.failure(.timeout("30 s")), now: 0),
            .retryLater(reason: "ServiceUnavailable: push service timed out: 30 s", afterSeconds: nil))
        XCTAssertEqual(
            WebPushVerdict.interpret(.failure(.invalidRequest("10.0.0.1 is private")), now: 0),
            .rejected(status: 400, reason: "EndpointRefused: 10.0.0.1 is private"))
    }

    /// What a service says reaches logs and /status: bounded and without control characters.
    func testExplanationsAreBoundedAndPrintable() {
        guard case .rejected(_, let reason) = verdict(400, body: String(repeating: "é\u{7}", count: 500)) else {
            return XCTFail("expected a refusal")
        }
        XCTAssertLessThanOrEqual(reason.count, "BadRequest: ".count + 201)
        XCTAssertFalse(reason.contains("\u{7}"))
        XCTAssertTrue(WebPushVerdict.reasonWords.contains(String(reason.prefix { $0 != ":" })))
    }
}
