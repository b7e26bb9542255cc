import PushCore
import XCTest

@testable import FastCGI

final class BodyLimitTests: XCTestCase {
    let limit = BodyLimit(maxBytes: 1000)

    func testDeclaredLengthDecidesBeforeReading() {
        XCTAssertEqual(limit.verdict(contentLength: "1000"), .read(expected: 1000))
        XCTAssertEqual(limit.verdict(contentLength: "0"), .read(expected: 0))
        XCTAssertEqual(limit.verdict(contentLength: "1001"), .tooLarge(declared: 1001))
        XCTAssertEqual(limit.verdict(contentLength: "99999999999999999999"), .read(expected: nil))
    }

    func testMissingOrOddLengthMeansReadAndCount() {
        XCTAssertEqual(limit.verdict(contentLength: nil), .read(expected: nil))
        XCTAssertEqual(limit.verdict(contentLength: ""), .read(expected: nil))
        XCTAssertEqual(limit.verdict(contentLength: "-5"), .read(expected: nil))
        XCTAssertEqual(limit.verdict(contentLength: "12abc"), .read(expected: nil))
        XCTAssertTrue(limit.admits(1000))
        XCTAssertFalse(limit.admits(1001))
    }

    /// A handler without a dialect shape of its own answers one line of text.
    func testTooLargeAnswerIsOneLineOfText() {
        struct Plain: RequestHandler {
            func handle(_ request: Request) -> Response { .text(200, "ok") }
        }
        let response = Plain().bodyTooLarge(Request(method: "POST", target: "/x"), bytes: 5000, limit: limit.maxBytes)
        XCTAssertEqual(response.status, 413)
        XCTAssertEqual(response.header("content-type"), "text/plain; charset=utf-8")
        XCTAssertEqual(String(decoding: response.body, as: UTF8.self), "request body too large: 5000 bytes, the limit is 1000\n")
    }

    func testDefaultConfiguration() {
        let configuration = FastCGIConfiguration(socketPath: "/run/pushgate.sock")
        XCTAssertEqual(configuration.maxBodyBytes, 1_048_576)
        XCTAssertEqual(configuration.socketMode, 0o660, "only the owner and the socket's group may speak FastCGI")
        XCTAssertNil(configuration.socketGroup)
        XCTAssertEqual(configuration.listenBacklog, 1024)
    }
}

final class RequestLogLineTests: XCTestCase {
    func testLineHasMethodPathStatusAndMilliseconds() {
        XCTAssertEqual(
            RequestLogLine.message(method: "POST", path: "/token", status: 200, nanoseconds: 1_234_567, note: nil),
            "POST /token 200 1.23 ms")
    }

    func testNoteIsAppended() {
        XCTAssertEqual(
            RequestLogLine.message(method: "GET", path: "/x", status: 500, nanoseconds: 0, note: "database is locked"),
            "GET /x 500 0.00 ms: database is locked")
    }

    func testMillisecondsRoundToHundredths() {
        XCTAssertEqual(RequestLogLine.milliseconds(4_999), "0.00")
        XCTAssertEqual(RequestLogLine.milliseconds(5_000), "0.01")
        XCTAssertEqual(RequestLogLine.milliseconds(90_000), "0.09")
        XCTAssertEqual(RequestLogLine.milliseconds(12_300_000), "12.30")
        XCTAssertEqual(RequestLogLine.milliseconds(2_000_000_000), "2000.00")
    }

    func testLongPathsAreCut() {
        let line = RequestLogLine.message(
            method: "GET", path: "/" + String(repeating: "a", count: 500), status: 404, nanoseconds: 0, note: nil)
        XCTAssertLessThan(line.count, 230)
    }
}
