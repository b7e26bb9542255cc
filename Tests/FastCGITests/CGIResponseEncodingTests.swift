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

    func testEmptyResponseHasZeroLengthAndNoInventedContentType() {
        XCTAssertEqual(text(.emptyOK), "Status: 200 OK\r\nContent-Length: 0\r\n\r\n")
    }

    func testUnknownStatusGetsAGenericReason() {
        XCTAssertTrue(text(Response(status: 418)).hasPrefix("Status: 418 Status 418\r\n"))
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
