import Foundation
import PushTesting
import XCTest

/// Errors nginx makes itself (a body over its limit, pushgate unreachable) come in the error
/// shape of the API the request was for, through the shipped nginx configuration.
final class NginxErrorShapeTests: XCTestCase {
    private var pushgate: PushgateInstance!

    override func setUpWithError() throws {
        // nginx's limit is twice pushgate's: 20,000 bytes.
        pushgate = try PushgateInstance(environment: ["PUSHGATE_MAX_BODY_BYTES": "10000"])
        try pushgate.start()
    }

    override func tearDown() {
        pushgate = nil
    }

    private func post(_ target: String, bytes: Int) throws -> HTTPClient.Response {
        try pushgate.client.post(target, contentType: "application/json", body: Array(repeating: UInt8(ascii: "x"), count: bytes))
    }

    private func json(_ response: HTTPClient.Response) throws -> [String: Any] {
        XCTAssertEqual(response.header("content-type"), "application/json", response.text)
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any], response.text)
    }

    func testABodyOverNginxsLimitGetsEachDialectsShape() throws {
        let pnm2 = try post("/pnm2/send", bytes: 30_000)
        XCTAssertEqual(pnm2.status, 413)
        let reply = try json(pnm2)
        XCTAssertEqual(reply["code"] as? Int, 413)
        XCTAssertEqual(reply["status"] as? Int, 413)
        XCTAssertEqual(reply["response"] as? String, "request body too large: the limit is 20000")
        XCTAssertEqual(try json(try post("/pnm2/multisend", bytes: 30_000))["code"] as? Int, 413)

        let cospace = try post("/api/push/events", bytes: 30_000)
        XCTAssertEqual(cospace.status, 413)
        XCTAssertEqual(try json(cospace)["status"] as? String, "body-too-large")

        let beams = try post("/publish_api/v1/instances/some-app-key/publishes", bytes: 30_000)
        XCTAssertEqual(beams.status, 413)
        let beamsError = try json(beams)
        XCTAssertEqual(beamsError["error"] as? String, "Payload Too Large")
        XCTAssertEqual(beamsError["description"] as? String, "request body too large: the limit is 20000")

        let bridge = try post("/push/topics/news", bytes: 30_000)
        XCTAssertEqual(bridge.status, 413)
        let bridgeError = try XCTUnwrap(try json(bridge)["response"] as? [String: Any])
        XCTAssertEqual(bridgeError["error"] as? String, "request body too large: the limit is 20000")

        // The Token Reporter's errors are one line of text.
        let reporter = try post("/token/", bytes: 30_000)
        XCTAssertEqual(reporter.status, 413)
        XCTAssertEqual(reporter.text, "request body too large: the limit is 20000\n")
        XCTAssertTrue(reporter.header("content-type")?.hasPrefix("text/plain") ?? false)

        // Under nginx's limit, pushgate answers itself: the request reached it.
        XCTAssertEqual(try post("/pnm2/send", bytes: 100).status, 400)
    }

    /// Between pushgate's limit (10,000) and nginx's (20,000) the body reaches pushgate, whose
    /// refusal comes from the dialect the path names, as the dialect's own limit's does.
    func testABodyOverPushgatesLimitGetsEachDialectsShapeFromPushgate() throws {
        let pnm2 = try post("/pnm2/send", bytes: 15_000)
        XCTAssertEqual(pnm2.status, 413)
        let reply = try json(pnm2)
        XCTAssertEqual(reply["code"] as? Int, 413)
        XCTAssertEqual(reply["status"] as? Int, 413)
        XCTAssertEqual(reply["response"] as? String, "request body too large: 15000 bytes, the limit is 10000")
        XCTAssertEqual(try json(try post("/pnm2/multisend", bytes: 15_000))["code"] as? Int, 413)

        let cospace = try post("/api/push/events", bytes: 15_000)
        XCTAssertEqual(cospace.status, 413)
        XCTAssertEqual(try json(cospace)["status"] as? String, "body-too-large")

        // Beams answers an oversized body 400, as over its own 10 KiB limit.
        let beams = try post("/publish_api/v1/instances/some-app-key/publishes", bytes: 15_000)
        XCTAssertEqual(beams.status, 400)
        XCTAssertEqual(try json(beams)["description"] as? String, "Request body size is too large (max 9KiB).")

        let bridge = try post("/push/topics/news", bytes: 15_000)
        XCTAssertEqual(bridge.status, 413)
        let bridgeError = try XCTUnwrap(try json(bridge)["response"] as? [String: Any])
        XCTAssertEqual(bridgeError["error"] as? String, "request body is larger than 10000 bytes")

        let reporter = try post("/token/", bytes: 15_000)
        XCTAssertEqual(reporter.status, 413)
        // The Token Reporter's own limit (16 KiB, or the server's when lower) answers first.
        XCTAssertEqual(reporter.text, "body is larger than 10000 bytes\n")
    }

    func testPushgateUnreachableGetsEachDialectsShapeAndSaysSo() throws {
        pushgate.killServe()
        let pnm2 = try post("/pnm2/send", bytes: 10)
        XCTAssertEqual(pnm2.status, 502)
        let reply = try json(pnm2)
        XCTAssertEqual(reply["code"] as? Int, 502)
        let reason = try XCTUnwrap(reply["response"] as? String)
        XCTAssertTrue(reason.hasPrefix("nginx could not reach pushgate"), reason)
        XCTAssertFalse(reason.contains("is not running\""), reason)

        XCTAssertEqual(try json(try pushgate.client.get("/api/push"))["status"] as? String, "pushgate-unreachable")
        let health = try pushgate.client.get("/healthz")
        XCTAssertEqual(health.status, 502)
        XCTAssertTrue(health.text.hasPrefix("nginx could not reach pushgate: "), health.text)
    }
}
