import PushCore
import XCTest

@testable import FastCGI

final class CGIResponseEncodingTests: XCTestCase {
    private func text(_ response: Response) -> String {
        String(decoding: CGIResponseEncoding.bytes(response), as: UTF8.self)
    }

    func testStatusHeadersLengthAndBody() {
        let response = Response.json(201, Array("{}".utf8), headers: [("X-Id", "7")])
        XCTAssertEqual(
            text(response),
            "Status: 201 Created\r\nContent-Type: application/json\r\nX-Id: 7\r\nContent-Length: 2\r\n\r\n{}")
    }

    func testTheLengthIsTheBodysInDecimal() {
        for length in [1, 9, 10, 99, 100, 65_536, 1_000_000] {
            let head = CGIResponseEncoding.head(
                Response(status: 200, headers: [], body: [UInt8](repeating: 1, count: length)))
            XCTAssertEqual(String(decoding: head, as: UTF8.self), "Status: 200 OK\r\nContent-Length: \(length)\r\n\r\n")
        }
        let odd = CGIResponseEncoding.head(Response(status: 999, headers: [("A", "b")], body: []))
        XCTAssertEqual(
            String(decoding: odd, as: UTF8.self),
            "Status: 999 \(Response.reasonPhrase(999))\r\nA: b\r\nContent-Length: 0\r\n\r\n")
    }

    func testEmptyResponseHasZeroLengthAndNoInventedContentType() {
        XCTAssertEqual(text(.emptyOK), "Status: 200 OK\r\nContent-Length: 0\r\n\r\n")
    }

    /// Every status a handler, the router or the edge answers with (Beams' 422 went out as
    /// `422 Status 422`), with the phrase clients and nginx's log expect.
    func testEveryStatusPushgateSendsHasItsReasonPhrase() {
        let sent: [(Int, String)] = [
            (200, "OK"), (201, "Created"), (202, "Accepted"), (204, "No Content"), (400, "Bad Request"),
            (401, "Unauthorized"), (403, "Forbidden"), (404, "Not Found"), (405, "Method Not Allowed"),
            (409, "Conflict"), (410, "Gone"), (413, "Payload Too Large"), (415, "Unsupported Media Type"),
            (422, "Unprocessable Entity"), (429, "Too Many Requests"), (500, "Internal Server Error"),
            (502, "Bad Gateway"), (503, "Service Unavailable"), (504, "Gateway Timeout"),
        ]
        for (status, phrase) in sent {
            XCTAssertTrue(
                text(Response(status: status)).hasPrefix("Status: \(status) \(phrase)\r\n"),
                text(Response(status: status)))
        }
    }

    func testEveryRegisteredStatusHasAPhraseAndOthersTheirClasssName() {
        for status in 100...599 {
            // Split on the string: "\r\n" is one Character in Swift.
            let line = text(Response(status: status)).components(separatedBy: "\r\n")[0]
            XCTAssertFalse(line.contains("Status \(status)"), line)
            let phrase = line.dropFirst("Status: \(status) ".count)
            XCTAssertFalse(phrase.isEmpty, line)
            XCTAssertTrue(phrase.allSatisfy { $0.isLetter || $0 == " " || $0 == "-" }, line)
        }
        XCTAssertTrue(text(Response(status: 418)).hasPrefix("Status: 418 Client Error\r\n"))
        XCTAssertTrue(text(Response(status: 599)).hasPrefix("Status: 599 Server Error\r\n"))
        XCTAssertTrue(text(Response(status: 226)).hasPrefix("Status: 226 IM Used\r\n"))
        XCTAssertTrue(text(Response(status: 511)).hasPrefix("Status: 511 Network Authentication Required\r\n"))
    }

    func testHandlerFramingHeadersAreReplacedByOurs() {
        let response = Response(
            status: 200, headers: [("content-length", "999"), ("Status", "500"), ("Transfer-Encoding", "chunked")],
            body: [65])
        XCTAssertEqual(text(response), "Status: 200 OK\r\nContent-Length: 1\r\n\r\nA")
    }

    func testLineBreaksInHeadersCannotInjectHeaders() {
        let response = Response(status: 200, headers: [("X-A", "1\r\nSet-Cookie: evil=1")])
        XCTAssertEqual(text(response), "Status: 200 OK\r\nX-A: 1  Set-Cookie: evil=1\r\nContent-Length: 0\r\n\r\n")
    }

    func testHeadIsTheBytesBeforeTheBody() {
        let response = Response.text(400, "no")
        XCTAssertEqual(CGIResponseEncoding.head(response) + response.body, CGIResponseEncoding.bytes(response))
    }
}
