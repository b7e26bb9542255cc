import PushCore
import XCTest

final class JSONNestingTests: XCTestCase {
    func nested(_ depth: Int, open: String = "[", close: String = "]") -> [UInt8] {
        Array((String(repeating: open, count: depth) + String(repeating: close, count: depth)).utf8)
    }

    func testDepthCountsArraysAndObjectsOpenAtOnce() {
        XCTAssertTrue(JSONNesting.isWithin(32, nested(32)))
        XCTAssertFalse(JSONNesting.isWithin(32, nested(33)))
        XCTAssertTrue(JSONNesting.isWithin(2, Array(#"{"a":[1],"b":{"c":2},"d":[]}"#.utf8)), "siblings do not add up")
        XCTAssertFalse(JSONNesting.isWithin(2, Array(#"{"a":[1],"d":[[]]}"#.utf8)))
        XCTAssertFalse(JSONNesting.isWithin(2, Array(#"{"a":[{"b":1}]}"#.utf8)))
        XCTAssertTrue(JSONNesting.isWithin(0, Array("42".utf8)))
    }

    func testBracketsInsideStringsDoNotCount() {
        XCTAssertTrue(JSONNesting.isWithin(1, Array(#"{"a":"[[[{{{"}"#.utf8)))
        XCTAssertTrue(JSONNesting.isWithin(1, Array(#"{"a":"\"[[[","b":"\\"}"#.utf8)), "escaped quotes and backslashes")
        XCTAssertFalse(JSONNesting.isWithin(1, Array(#"{"a":"\\",  "b":[]}"#.utf8)), "a string ending in a backslash ends")
    }

    func testParseRefusesDeepDocumentsBeforeTheParser() {
        XCTAssertThrowsError(try JSONValue.parse(nested(33))) { error in
            XCTAssertEqual(error as? JSONValue.ParseError, .tooDeep)
        }
        XCTAssertNoThrow(try JSONValue.parse(nested(32)))
        XCTAssertNoThrow(try JSONValue.parse(nested(100), maximumDepth: .max), "the store reads back what it holds")
        // Far past the parser's own recursion: refused, not a crash.
        XCTAssertThrowsError(try JSONValue.parse(nested(100_000, open: "{\"a\":", close: "}")))
    }
}
