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
        let response = Plain().refuse(Request(method: "POST", target: "/x"), .bodyTooLarge(bytes: 5000, limit: limit.maxBytes))
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

    func testAPlainSuccessIsDebugAndARefusalAFailureOrANoteIsInfo() {
        XCTAssertEqual(RequestLogLine.level(status: 200, note: nil), .debug)
        XCTAssertEqual(RequestLogLine.level(status: 204, note: nil), .debug)
        XCTAssertEqual(RequestLogLine.level(status: 301, note: nil), .debug)
        XCTAssertEqual(RequestLogLine.level(status: 200, note: "3 queued, 0 left out of pbx's scope"), .info)
        XCTAssertEqual(RequestLogLine.level(status: 400, note: nil), .info)
        XCTAssertEqual(RequestLogLine.level(status: 429, note: "login throttled"), .info)
        XCTAssertEqual(RequestLogLine.level(status: 503, note: nil), .info)
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

/// The request log's path never carries a whole token, client id or password.
final class LoggedPathTests: XCTestCase {
    func testShortPathsStayWhole() {
        XCTAssertEqual(LoggedPath.shown("/token/alice/"), "/token/alice/")
        XCTAssertEqual(LoggedPath.shown("/api/push"), "/api/push")
        XCTAssertEqual(LoggedPath.shown("/"), "/")
    }

    func testTheFirstLongSegmentIsCutAndTheRestDropped() {
        XCTAssertEqual(
            LoggedPath.shown("/pushToken/alice/12869E0E6E553673C54F29105A0647204C416A2A:7C3A0D14/Udl99X2J%2FwGe"),
            "/pushToken/alice/12869E0E…")
        XCTAssertEqual(
            LoggedPath.shown("/client_api/v1/clients/6f1c0d2e-1a2b-4c3d-8e9f-0a1b2c3d4e5f/token"),
            "/client_api/v1/clients/6f1c0d2e…")
        // A base64 token's `/` does not leave its later parts whole.
        XCTAssertEqual(LoggedPath.shown("/pushToken/a/s/Udl99X2JFP1bWwS5gR/wGeLE1hmAB2CMpr1Ej0wxkrY="), "/pushToken/a/s/Udl99X2J…")
    }

    func testTheFormTailOfAPathIsDropped() {
        XCTAssertEqual(LoggedPath.shown("/pushToken/bob/sel/tok&appid=x&password=hunter2"), "/pushToken/bob/sel/tok&…")
        XCTAssertEqual(LoggedPath.shown("/pushToken/bob/sel/QVBBOTFiRzlhcVd2bW54&password=hunter2"), "/pushToken/bob/sel/QVBBOTFi…")
    }

    /// Segments are measured in characters, not bytes, when the path is not ASCII.
    func testAPathBeyondASCIIIsCutByCharacters() {
        XCTAssertEqual(LoggedPath.shown("/u/zoë/ünïcödé-ünïcödé/x"), "/u/zoë/ünïcödé-ünïcödé/x")
        XCTAssertEqual(LoggedPath.shown("/u/ünïcödé-ünïcödé-ü/x&p=1"), "/u/ünïcödé-…")
        XCTAssertEqual(LoggedPath.shown("/u/zoë&p=1"), "/u/zoë&…")
    }

    func testTheRequestLineShowsTheShortenedPath() {
        let line = RequestLogLine.message(
            method: "GET", path: "/pushToken/bob/sel/QVBBOTFiRzlhcVd2bW54bllC&password=hunter2", status: 200,
            nanoseconds: 0, note: nil)
        XCTAssertEqual(line, "GET /pushToken/bob/sel/QVBBOTFi… 200 0.00 ms")
    }
}
