import Foundation
import Glibc
import Logging
import PushCore
import PushTesting
import XCTest

@testable import FastCGI

/// nginx (rendered by scripts/render-nginx) in front of an in-process FastCGIServer with an echo
/// handler: what a client sees through the real front server.
final class EndToEndTests: XCTestCase {
    private var directory: TemporaryDirectory!
    private var socketPath: String { directory.path + "/run/pushgate.sock" }
    private var server: FastCGIServer!
    private var nginx: NginxProcess!
    private var logs: RecordingLogHandler.Store!

    /// pushgate's limit (1000 bytes) sits below nginx's (64k), so both 413s can be seen.
    override func setUpWithError() throws {
        directory = try TemporaryDirectory()
        let (logger, store) = RecordingLogHandler.logger()
        logs = store
        server = FastCGIServer(
            configuration: FastCGIConfiguration(socketPath: socketPath, socketGroup: NginxProcess.workerGroupID, threadCount: 2, maxBodyBytes: 1000))
        try server.start(makeHandler: { EchoHandler(thread: $0) }, logger: logger)
        nginx = try NginxProcess(
            prefix: directory.url.appendingPathComponent("nginx"), port: try freeLoopbackPort(),
            socketPath: socketPath, maxBody: "64k", workers: 1)
    }

    override func tearDown() {
        nginx?.stop()
        server?.stop()
        nginx = nil
        server = nil
        directory = nil
    }

    /// A client for nginx that gives up after 10 s of silence.
    private var client: HTTPClient { HTTPClient(port: nginx.port, timeoutSeconds: 10) }

    private func send(
        _ method: String, _ target: String, headers: [(String, String)] = [], body: [UInt8] = []
    ) throws -> HTTPClient.Response {
        try client.request(method, target, headers: headers, body: body)
    }

    private func echo(_ response: HTTPClient.Response) throws -> Echo {
        XCTAssertEqual(response.status, 200, response.text)
        return try JSONDecoder().decode(Echo.self, from: Data(response.body))
    }

    func testEchoesMethodPathQueryBodyAndHeaders() throws {
        let response = try send(
            "POST", "/pnm2/send?verb=notify&password=secret",
            headers: [("Content-Type", "application/json"), ("User-Agent", "Acrobits/1.0"), ("X-Custom-Thing", "v")],
            body: Array(#"{"a":1}"#.utf8))
        XCTAssertEqual(response.header("content-type"), "application/json")
        XCTAssertEqual(response.header("x-echo"), "yes")
        let seen = try echo(response)
        XCTAssertEqual(seen.method, "POST")
        XCTAssertEqual(seen.path, "/pnm2/send")
        XCTAssertEqual(seen.query, "verb=notify&password=secret")
        XCTAssertEqual(seen.body, #"{"a":1}"#)
        XCTAssertEqual(seen.headers["content-type"], "application/json")
        XCTAssertEqual(seen.headers["content-length"], "7")
        XCTAssertEqual(seen.headers["user-agent"], "Acrobits/1.0")
        XCTAssertEqual(seen.headers["x-custom-thing"], "v")
        XCTAssertEqual(seen.remoteAddress, "127.0.0.1")
        // nginx's $request_id: 32 hex digits.
        XCTAssertEqual(seen.id.count, 32, seen.id)

        // One log line, without the query string, carrying the request id. It is written
        // after the answer is sent, so it may arrive a moment after the response.
        func requestLines() -> [(level: Logger.Level, message: String, metadata: Logger.Metadata)] {
            logs.all.filter { $0.message.hasPrefix("POST /pnm2/send") }
        }
        for _ in 0..<200 where requestLines().isEmpty { usleep(10_000) }
        let lines = requestLines()
        XCTAssertEqual(lines.count, 1)
        XCTAssertEqual(lines.first?.level, .debug, "a plain success: nginx's access log has it too")
        XCTAssertFalse(lines.first?.message.contains("secret") ?? true)
        XCTAssertTrue(lines.first?.message.contains(" 200 ") ?? false, lines.first?.message ?? "")
        XCTAssertEqual(lines.first?.metadata["request-id"], .string(seen.id))
    }

    func testEncodedSlashesAndOddPathsReachTheResponderRaw() throws {
        let seen = try echo(try send("GET", "/token/a%2Fb//c/%41?x=%2F"))
        XCTAssertEqual(seen.path, "/token/a%2Fb//c/%41")
        XCTAssertEqual(seen.query, "x=%2F")
        XCTAssertEqual(seen.method, "GET")
        XCTAssertNil(seen.headers["content-type"])
        XCTAssertNil(seen.headers["content-length"])

        let absolute = try echo(try send("GET", "http://localhost/api/push?a=1"))
        XCTAssertEqual(absolute.path, "/api/push")
        XCTAssertEqual(absolute.query, "a=1")
    }

    func testChunkedBodyIsReadWithoutALength() throws {
        let chunked = Array("5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n".utf8)
        let seen = try echo(
            try send("PUT", "/client_api/v1/x", headers: [("Transfer-Encoding", "chunked")], body: chunked))
        XCTAssertEqual(seen.method, "PUT")
        XCTAssertEqual(seen.body, "hello world")
    }

    func testEmptyResponseKeepsNoContentTypeAndZeroLength() throws {
        let response = try send("GET", "/empty")
        XCTAssertEqual(response.status, 200)
        XCTAssertNil(response.header("content-type"), "\(response.headers)")
        XCTAssertEqual(response.header("content-length"), "0")
        XCTAssertEqual(response.body, [])
    }

    func testBodyOverPushgatesLimitGetsPushgates413() throws {
        let response = try send("POST", "/token", headers: [("Content-Type", "text/plain")], body: Array(repeating: 120, count: 5000))
        XCTAssertEqual(response.status, 413)
        XCTAssertEqual(response.text, "request body too large: 5000 bytes, the limit is 1000\n")
        XCTAssertEqual(response.header("content-type"), "text/plain; charset=utf-8")

        // Without a length (chunked), pushgate counts while reading.
        var chunked: [UInt8] = []
        for _ in 0..<3 { chunked += Array("7d0\r\n".utf8) + Array(repeating: 121, count: 2000) + Array("\r\n".utf8) }
        chunked += Array("0\r\n\r\n".utf8)
        let streamed = try send("POST", "/pnm2/send", headers: [("Transfer-Encoding", "chunked")], body: chunked)
        XCTAssertEqual(streamed.status, 413)
        XCTAssertTrue(streamed.text.hasPrefix("request body too large: "), streamed.text)
        XCTAssertTrue(streamed.text.hasSuffix("the limit is 1000\n"), streamed.text)

        // Exactly at the limit is fine.
        XCTAssertEqual(try echo(try send("POST", "/x", body: Array(repeating: 122, count: 1000))).body.count, 1000)
    }

    func testBodyOverNginxsLimitGetsNginxs413AsText() throws {
        let response = try send("POST", "/token", body: Array(repeating: 120, count: 200_000))
        XCTAssertEqual(response.status, 413)
        XCTAssertEqual(response.text, "request body too large: the limit is 64k\n")
        XCTAssertTrue(response.header("content-type")?.hasPrefix("text/plain") ?? false, "\(response.headers)")
    }

    func testNginxHealthNeedsNoResponder() throws {
        server.stop()
        let response = try send("GET", "/nginx-health")
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.text, "ok\n")
    }

    func testStoppedResponderGives502TextAndRemovesItsSocket() throws {
        XCTAssertEqual(try send("GET", "/anything").status, 200)
        server.stop()
        XCTAssertFalse(FileManager.default.fileExists(atPath: socketPath))
        let response = try send("GET", "/anything")
        XCTAssertEqual(response.status, 502)
        // nginx cannot tell a stopped responder from a socket its workers may not reach.
        XCTAssertEqual(
            response.text,
            "nginx could not reach pushgate: it is not running, or nginx's workers cannot reach its socket (pushgate doctor says which)\n"
        )
        XCTAssertTrue(response.header("content-type")?.hasPrefix("text/plain") ?? false)
    }

    func testRequestInFlightFinishesWhenStopping() throws {
        let result = ResultBox<HTTPClient.Response?>()
        let client = self.client
        let thread = Thread {
            result.set(try? client.get("/slow"))
        }
        thread.start()
        usleep(100_000)  // the request is now in the handler's 300 ms sleep
        server.stop()
        let response = try XCTUnwrap(result.wait(timeout: 5), "no answer within 5 s")
        XCTAssertEqual(response?.status, 200)
        XCTAssertEqual(response?.text, "slow\n")
    }

    func testManyRequestsOnFewThreads() throws {
        let group = DispatchGroup()
        let failures = ResultBox<HTTPClient.Response?>()
        let client = self.client
        for index in 0..<40 {
            group.enter()
            DispatchQueue.global().async {
                let response = try? client.request("POST", "/n/\(index)", body: Array("\(index)".utf8))
                if response?.status != 200 || !(response?.text.contains("\"body\":\"\(index)\"") ?? false) {
                    failures.set(response)
                }
                group.leave()
            }
        }
        XCTAssertEqual(group.wait(timeout: .now() + 30), .success)
        XCTAssertNil(failures.value, "a request failed: \(String(describing: failures.value??.text))")
    }
}
