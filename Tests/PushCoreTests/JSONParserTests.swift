import Foundation
import XCTest

@testable import PushCore

/// `JSONParser` against Foundation's `JSONDecoder` decoding `JSONValue` (what parsed request
/// bodies before): the same value, or both refusing, for chosen documents and for many
/// generated from JSON's own pieces.
final class JSONParserTests: XCTestCase {
    private func reference(_ bytes: [UInt8]) -> JSONValue? {
        try? JSONDecoder().decode(JSONValue.self, from: Data(bytes))
    }

    private func parsed(_ bytes: [UInt8]) -> JSONValue? {
        try? JSONParser.parse(bytes)
    }

    private func assertSameAsFoundation(_ text: String, file: StaticString = #filePath, line: UInt = #line) {
        let bytes = Array(text.utf8)
        XCTAssertEqual(parsed(bytes), reference(bytes), "for \(text.debugDescription)", file: file, line: line)
    }

    func testChosenDocumentsParseAsFoundationParsedThem() {
        let documents = [
            #"{"verb":"NotifyTextMessage","AppId":"com.example","Badge":1,"Sound":"default"}"#,
            #"[1, -2.5, 3e2, 4E-2, 0, -0, 0.5, 123456789012345678901234567890]"#, "true", "false", "null", "42",
            #""text""#, "  {\n\t\"a\" : [ ] , \"b\":{}}\r\n", #"{"a":1,"a":2}"#, #""\u00e9\ud83d\ude00 \n\t\"\\\/\b\f\r""#,
            #""caf\u00E9""#, "\"é 😀\"", #"{"nested":{"deeper":[{"x":null}]}}"#,
            // JSONDecoder's leniencies, kept: a trailing comma, a byte-order mark.
            "[1,]", "{\"a\":1,}", "\u{FEFF}{}", "[[1,],]",
            // Refused by both:
            "", " ", "{", "}", "[01]", "[1.]", "[.5]", "[1e]", "[+1]", "[-]", "[1e400]",
            "tru", "nul", "True", "[1 2]", "{\"a\" 1}", "{a:1}", "\"unterminated", "\"raw\ttab\"", "\"raw\nline\"",
            #""\x""#, #""\u12""#, #""\ud800""#, #""\udc00""#, #""\ud800\u0041""#, "[1]x", "{} {}", "'a'", "[NaN]",
            "[Infinity]", "/* c */ 1", "[,]", "{,}", "[1,,]", "\u{FEFF}", " \u{FEFF}{}",
        ]
        for document in documents { assertSameAsFoundation(document) }
    }

    /// Documents put together at random from JSON's tokens and some that break it, with a
    /// fixed seed so that a failure repeats.
    func testGeneratedDocumentsParseAsFoundationParsedThem() {
        let pieces = [
            "{", "}", "[", "]", ",", ":", " ", "\"a\"", "\"\\u00e9\"", "\"\\n\"", "1", "-1", "0.5", "2e3", "true",
            "false", "null", "\"x\"", "01", "1.", "\"\\", "\\u", "-", "e", "\t",
        ]
        var generator = SplitMix64(seed: 0x5EED)
        var agreed = 0
        for _ in 0..<5_000 {
            let count = Int(generator.next() % 8) + 1
            let text = (0..<count).map { _ in pieces[Int(generator.next() % UInt64(pieces.count))] }.joined()
            let bytes = Array(text.utf8)
            XCTAssertEqual(parsed(bytes), reference(bytes), "for \(text.debugDescription)")
            if parsed(bytes) != nil { agreed += 1 }
        }
        XCTAssertGreaterThan(agreed, 100, "the generator makes valid documents too, not only broken ones")
    }

    func testParseRefusesInvalidUTF8AndDeepNestingFirst() {
        XCTAssertThrowsError(try JSONValue.parse([0x22, 0xC3, 0x28, 0x22])) { XCTAssertEqual($0 as? JSONValue.ParseError, .invalidUTF8) }
        let deep = Array((String(repeating: "[", count: 200) + String(repeating: "]", count: 200)).utf8)
        XCTAssertThrowsError(try JSONValue.parse(deep)) { XCTAssertEqual($0 as? JSONValue.ParseError, .tooDeep) }
        XCTAssertEqual(try JSONValue.parse(deep, maximumDepth: .max).arrayValue?.count, 1)
    }
}
