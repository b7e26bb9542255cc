import PushCore
import XCTest

/// A request's headers as a list: a name is found, replaced and removed as in a dictionary,
/// and two lists of the same fields are equal in any order.
final class HTTPHeadersTests: XCTestCase {
    func testFieldsAreFoundReplacedAndRemovedByName() {
        var headers = HTTPHeaders(minimumCapacity: 2)
        XCTAssertNil(headers["host"])
        headers["host"] = "a"
        headers["accept"] = "*/*"
        headers["host"] = "b"
        XCTAssertEqual(headers["host"], "b")
        XCTAssertEqual(headers.count, 2)
        headers["accept"] = nil
        headers["absent"] = nil
        XCTAssertEqual(headers.map(\.name), ["host"])
        XCTAssertNil(headers["accept"])
    }

    func testARepeatedFieldIsJoined() {
        var headers = HTTPHeaders()
        headers.add("accept", "a", joiningRepeatsWith: ", ")
        headers.add("host", "h", joiningRepeatsWith: ", ")
        headers.add("accept", "b", joiningRepeatsWith: ", ")
        XCTAssertEqual(headers, ["accept": "a, b", "host": "h"])
    }

    func testEqualityIgnoresOrderButNotValuesOrCount() {
        let headers: HTTPHeaders = ["a": "1", "b": "2"]
        XCTAssertEqual(headers, ["b": "2", "a": "1"])
        XCTAssertEqual(headers, HTTPHeaders(["a": "1", "b": "2"]))
        XCTAssertNotEqual(headers, ["a": "1", "b": "3"])
        XCTAssertNotEqual(headers, ["a": "1"])
        XCTAssertNotEqual(headers, ["a": "1", "b": "2", "c": "3"])
        XCTAssertEqual(
            Request(method: "GET", path: "/", headers: ["content-type": "text/plain"]).header("Content-Type"),
            "text/plain")
    }
}
