import Foundation
import XCTest

@testable import PushCore

/// `JSONValue.encoded()` (`JSONSerializer`) against Foundation's `JSONEncoder` with sorted keys
/// and unescaped slashes, which wrote every payload before: the same bytes, for chosen values
/// and for many generated ones.
final class JSONSerializerTests: XCTestCase {
    private func reference(_ value: JSONValue) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return Array((try? encoder.encode(value)) ?? Data("null".utf8))
    }

    private func assertSameAsFoundation(_ value: JSONValue, file: StaticString = #filePath, line: UInt = #line) {
        let written = value.encoded()
        XCTAssertEqual(
            String(decoding: written, as: UTF8.self), String(decoding: reference(value), as: UTF8.self),
            "for \(value)", file: file, line: line)
    }

    func testChosenValuesAreWrittenAsFoundationWroteThem() {
        let values: [JSONValue] = [
            .null, .bool(true), .bool(false), .number(0), .number(-0.0), .number(42), .number(-7), .number(1.5),
            .number(0.1), .number(1e-7), .number(1e15), .number(999_999_999_999_999), .number(-1e15),
            .number(123_456_789_012_345.6), .number(1e20), .number(1e300), .number(2.5e-300), .number(.infinity),
            .number(.nan), .array([.number(1), .number(.infinity)]),
            .string(""), .string("plain"), .string("\u{0}\u{1}\u{8}\u{C}\n\r\t\u{1F}\u{7F}\"\\/\u{2028}é😀"),
            .array([]), .object([:]), .array([.null, .array([.object([:])])]),
            .object([
                "a": .number(1), "B": .number(2), "b": .number(3), "A": .number(4), "a10": .null, "a9": .null,
                "_": .null, "é": .null, "e": .null, "ß": .null, "ss": .null, "ｂ": .null, "😀": .null, "": .null,
                "a\"b": .string("x"), "line\nkey": .bool(true),
            ]),
            .object(["aps": .object(["alert": .object(["title": .string("T"), "body": .string("B")]), "badge": .number(1)])]),
        ]
        for value in values { assertSameAsFoundation(value) }
    }

    /// Values put together at random, nested up to four deep, with a fixed seed so that a
    /// failure repeats.
    func testGeneratedValuesAreWrittenAsFoundationWroteThem() {
        var generator = SplitMix64(seed: 0xC0FFEE)
        for _ in 0..<3_000 {
            assertSameAsFoundation(Self.value(depth: 0, &generator))
        }
    }

    private static let texts = [
        "", "a", "A", "z", "Z", "_", "0", "10", "9", "é", "e\u{301}", "ß", "ｂ", "😀", "\u{0}", "\u{1F}", "\t", "\"",
        "\\", "/", "\u{7F}", "\u{2028}", "key with space", "émoji 😀 text",
    ]

    private static func value(depth: Int, _ generator: inout SplitMix64) -> JSONValue {
        let kind = generator.next() % (depth < 4 ? 8 : 5)
        switch kind {
        case 0: return .null
        case 1: return .bool(generator.next() % 2 == 0)
        case 2: return .number(number(&generator))
        case 3, 4: return .string(text(&generator))
        case 5: return .array((0..<Int(generator.next() % 4)).map { _ in value(depth: depth + 1, &generator) })
        default:
            var members: [String: JSONValue] = [:]
            for _ in 0..<Int(generator.next() % 6) { members[text(&generator)] = value(depth: depth + 1, &generator) }
            return .object(members)
        }
    }

    private static func text(_ generator: inout SplitMix64) -> String {
        (0..<Int(generator.next() % 3) + 1).map { _ in texts[Int(generator.next() % UInt64(texts.count))] }.joined()
    }

    private static func number(_ generator: inout SplitMix64) -> Double {
        let magnitude = Double(generator.next() % 1_000_000) * pow(10, Double(Int(generator.next() % 40) - 20))
        let value = generator.next() % 3 == 0 ? magnitude.rounded() : magnitude
        return generator.next() % 2 == 0 ? value : -value
    }
}
