import XCTest
@testable import PushCore

final class FormParametersTests: XCTestCase {
    func testDecodesTheDocumentsQueryString() throws {
        let query = "username=johndow&password=12345678&selector=12869E0E6E553673C54F29105A0647204C416A2A:7C3A0D14&token_calls=Udl99X2JFP1bWwS5gR%2FwGeLE1hmAB2CMpr1Ej0wxkrY%3D&appid_calls=com.cloudsoftphone.app.pushkit"
        let form = try FormParameters.parse(query)
        XCTAssertEqual(form["username"], "johndow")
        XCTAssertEqual(form["token_calls"], "Udl99X2JFP1bWwS5gR/wGeLE1hmAB2CMpr1Ej0wxkrY=")
        XCTAssertEqual(form["selector"], "12869E0E6E553673C54F29105A0647204C416A2A:7C3A0D14")
    }

    func testPlusIsSpaceAndLaterValuesWin() throws {
        let form = try FormParameters.parse("a=1+2&&b&a=3")
        XCTAssertEqual(form["a"], "3")
        XCTAssertEqual(form["b"], "")
        XCTAssertEqual(form.pairs.first?.value, "1 2")
    }

    func testMalformedEscapesAndInvalidUTF8AreRefused() {
        XCTAssertThrowsError(try FormParameters.parse("a=%4")) { XCTAssertEqual($0 as? FormParameters.ParseError, .badPercentEncoding("%4")) }
        XCTAssertThrowsError(try FormParameters.parse("a=%zz"))
        XCTAssertThrowsError(try FormParameters.parse("a=%ff%fe")) { XCTAssertEqual($0 as? FormParameters.ParseError, .invalidUTF8("%ff%fe")) }
        XCTAssertThrowsError(try FormParameters.parse("a=1&b=%")) { XCTAssertEqual($0 as? FormParameters.ParseError, .badPercentEncoding("%")) }
    }

    /// Values without escapes are taken as they are, UTF-8 beyond ASCII included; a name
    /// may be escaped too, and only the first `=` splits.
    func testPlainUTF8EscapedNamesAndEqualsInValues() throws {
        let form = try FormParameters.parse(Substring("x=1&name=J\u{F6}rg&user%5Fname=a=b&=v"))
        XCTAssertEqual(form["name"], "J\u{F6}rg")
        XCTAssertEqual(form["user_name"], "a=b")
        XCTAssertEqual(form[""], "v")
        XCTAssertEqual(form.pairs.count, 4)
    }

    /// The name and the value of a pair are judged plain or escaped each on its own.
    func testNameAndValueAreDecodedEachOnItsOwn() throws {
        let form = try FormParameters.parse("a%2Bb=c=d&e+f=g%20h&%C3%A9=x&plain=%3D&flag")
        XCTAssertEqual(form.pairs.map { [$0.name, $0.value] }, [["a+b", "c=d"], ["e f", "g h"], ["\u{E9}", "x"], ["plain", "="], ["flag", ""]])
        XCTAssertThrowsError(try FormParameters.parse("ok=1&%ff=1")) { XCTAssertEqual($0 as? FormParameters.ParseError, .invalidUTF8("%ff")) }
    }

    func testPercentDecodeKeepsPlusUnlessAskedAndRefusesBadEscapes() throws {
        XCTAssertEqual(try FormParameters.percentDecode("a+b%2Fc", plusAsSpace: false), "a+b/c")
        XCTAssertEqual(try FormParameters.percentDecode("a+b%2Fc"[...], plusAsSpace: true), "a b/c")
        XCTAssertEqual(try FormParameters.percentDecode("", plusAsSpace: true), "")
        XCTAssertThrowsError(try FormParameters.percentDecode("%C3%28", plusAsSpace: false)) {
            XCTAssertEqual($0 as? FormParameters.ParseError, .invalidUTF8("%C3%28"))
        }
        XCTAssertThrowsError(try FormParameters.percentDecode("ab%2", plusAsSpace: false)) {
            XCTAssertEqual($0 as? FormParameters.ParseError, .badPercentEncoding("ab%2"))
        }
    }
}

final class JSONValueTests: XCTestCase {
    func testParsesObjectsWithEveryKind() throws {
        let value = try JSONValue.parse(Array(#"{"a":"x","b":null,"c":[1,true],"d":{"e":2.5}}"#.utf8))
        let object = try XCTUnwrap(value.objectValue)
        XCTAssertEqual(object["a"], .string("x"))
        XCTAssertEqual(object["b"], .null)
        XCTAssertEqual(object["c"], .array([.number(1), .bool(true)]))
        XCTAssertEqual(object["d"]?.objectValue?["e"], .number(2.5))
    }

    func testRefusesMalformedAndInvalidUTF8() {
        XCTAssertThrowsError(try JSONValue.parse(Array("{\"a\":".utf8))) { XCTAssertEqual($0 as? JSONValue.ParseError, .malformed) }
        XCTAssertThrowsError(try JSONValue.parse([0x7B, 0x22, 0xFF, 0x22, 0x3A, 0x31, 0x7D])) { XCTAssertEqual($0 as? JSONValue.ParseError, .invalidUTF8) }
    }

    func testEncodesIntegersAsIntegersWithSortedKeys() {
        let value = JSONValue.object(["b": .number(2), "a": .string("x")])
        XCTAssertEqual(String(decoding: value.encoded(), as: UTF8.self), #"{"a":"x","b":2}"#)
    }
}

final class RequestTests: XCTestCase {
    func testTrimmingTakesASCIIWhitespaceFromBothEndsOnly() {
        XCTAssertEqual(" \t\r\nnull \r\n".trimmingASCIIWhitespace(), "null")
        XCTAssertEqual("a b".trimmingASCIIWhitespace(), "a b")
        XCTAssertEqual("\ta b".trimmingASCIIWhitespace(), "a b")
        XCTAssertEqual("a b ".trimmingASCIIWhitespace(), "a b")
        XCTAssertEqual(" \t ".trimmingASCIIWhitespace(), "")
        XCTAssertEqual("".trimmingASCIIWhitespace(), "")
        XCTAssertEqual("\u{00A0}x\u{00A0}".trimmingASCIIWhitespace(), "\u{00A0}x\u{00A0}", "not ASCII: content")
        XCTAssertEqual("[ x ]".dropFirst().dropLast().trimmingASCIIWhitespace(), "x", "a Substring")
    }

    func testBytesAreASCIIOnlyBelow0x80() {
        let cases: [([UInt8], Bool)] = [
            ([], true), (Array("a/b \u{7F}".utf8), true), ([0x41, 0x80], false), (Array("é".utf8), false),
            ([0xFF], false),
        ]
        for (bytes, ascii) in cases {
            XCTAssertEqual(bytes.withUnsafeBufferPointer(\.isASCII), ascii, "\(bytes)")
        }
    }

    func testMediaTypeDropsParametersAndCase() {
        let request = Request(method: "POST", path: "/", headers: ["content-type": "Application/JSON; charset=utf-8"])
        XCTAssertEqual(request.mediaType, "application/json")
        XCTAssertNil(Request(method: "GET", path: "/").mediaType)
        let types: [(header: String, mediaType: String?)] = [
            (" \tTEXT/Plain \t", "text/plain"), ("application/x-www-form-urlencoded", "application/x-www-form-urlencoded"),
            ("a/b;c;d", "a/b"), (" ; charset=utf-8", nil), ("", nil), ("APPLICATION/JSÖN; x", "application/jsön"),
            ("Ä/B", "ä/b"),
        ]
        for (header, mediaType) in types {
            let request = Request(method: "POST", path: "/", headers: ["content-type": header])
            XCTAssertEqual(request.mediaType, mediaType, header)
        }
    }

    func testTargetSplitsAtTheFirstQuestionMark() {
        let request = Request(method: "GET", target: "/token/?a=b?c")
        XCTAssertEqual(request.path, "/token/")
        XCTAssertEqual(request.query, "a=b?c")
    }
}
