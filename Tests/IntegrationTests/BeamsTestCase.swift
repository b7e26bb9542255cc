import Foundation
import PushTesting
import XCTest

#if canImport(Glibc)
import Glibc
#endif

/// A Beams integration test: pushgate and the mocks up (see `MockUpstreamsTestCase`), and the
/// client and publish calls the Beams SDKs and backends make.
class BeamsTestCase: MockUpstreamsTestCase {
    func send(_ method: String, _ path: String, _ body: String, headers: [String: String] = [:]) throws
        -> HTTPClient.Response
    {
        try pushgate.client.request(
            method, path, headers: headers.merging(["Content-Type": "application/json"]) { mine, _ in mine },
            body: Array(body.utf8))
    }

    func json(_ response: HTTPClient.Response) throws -> [String: Any] {
        try XCTUnwrap(JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any], response.text)
    }

    /// Registers a client of `type` with `token` under `key`, subscribed to `interests`;
    /// returns its id.
    @discardableResult
    func client(key: String, type: String, token: String, interests: [String]) throws -> String {
        let created = try send(
            "POST", "/client_api/v1/clients", #"{"app_key": "\#(key)", "platform_type": "\#(type)", "token": "\#(token)"}"#)
        XCTAssertEqual(created.status, 201, created.text)
        let id = try XCTUnwrap(json(created)["id"] as? String)
        for interest in interests {
            let subscribed = try send("POST", "/client_api/v1/clients/\(id)/interests/\(interest)", #"{"app_key": "\#(key)"}"#)
            XCTAssertEqual(subscribed.status, 200, subscribed.text)
        }
        return id
    }

    /// Beams' error shape: `status`, the `error` title, a `description` containing `fragment`.
    func assertBeamsError(
        _ response: HTTPClient.Response, _ status: Int, _ title: String, contains fragment: String = "",
        file: StaticString = #filePath, line: UInt = #line
    ) throws {
        XCTAssertEqual(response.status, status, response.text, file: file, line: line)
        let body = try json(response)
        XCTAssertEqual(body["error"] as? String, title, response.text, file: file, line: line)
        let description = body["description"] as? String ?? ""
        XCTAssertTrue(fragment.isEmpty || description.contains(fragment), "\(description) lacks \(fragment)", file: file, line: line)
    }

    /// Waits until the outbox has nothing pending (every push answered).
    func waitForEmptyOutbox(timeout: TimeInterval = 20) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if try pushgate.cli(["outbox", "status"]).stdout.contains("pending: 0\n") { return }
            usleep(100_000)
        }
        XCTFail("the outbox did not drain: \(try pushgate.cli(["outbox", "status"]).stdout)\n\(pushgate.serveLog)")
    }
}
