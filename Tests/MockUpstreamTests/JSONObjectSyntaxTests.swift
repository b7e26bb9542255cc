import Foundation
import XCTest

@testable import MockUpstream

/// The mock's own JSON-object check agrees with Foundation's parser on what is a JSON object.
final class JSONObjectSyntaxTests: XCTestCase {
    private let objects = [
        #"{}"#, #" { } "#, #"{"aps":{"alert":"hello"}}"#, #"{"a":[1,-2.5,3e10,0,true,false,null,"x"]}"#,
        #"{"esc":"\"\\\/\b\f\n\r\t\u00e9"}"#, #"{"ünï":"cödé ✓"}"#, "{\n\t\"a\" : 1\r\n}",
        #"{"a":{"b":{"c":[[],{}]}}}"#,
        #"{"n":-0.0e-5}"#,
    ]

    private let notObjects = [
        "", " ", "[]", "1", #""s""#, "null", "{", "}", #"{"a"}"#, #"{"a":}"#, #"{"a":1,}"#, #"{a:1}"#, #"{"a":01}"#,
        #"{"a":1.}"#, #"{"a":.5}"#, #"{"a":tru}"#, #"{"a":"\x"}"#, #"{"a":"\u12"}"#, "{\"a\":\"\u{1}\"}", #"{} {}"#,
        #"{"a":[1,]}"#, #"{"a":-}"#, #"{'a':1}"#,
    ]

    func testAgreesWithFoundation() {
        for text in objects {
            XCTAssertTrue(JSONObjectSyntax.isObject(Array(text.utf8)), text)
            XCTAssertTrue((try? JSONSerialization.jsonObject(with: Data(text.utf8))) is [String: Any], text)
        }
        for text in notObjects {
            XCTAssertFalse(JSONObjectSyntax.isObject(Array(text.utf8)), text)
        }
    }

    func testRefusesInvalidUTF8AndDeepNesting() {
        XCTAssertFalse(JSONObjectSyntax.isObject([UInt8(ascii: "{"), 0x22, 0xFF, 0x22, 0x3A, 0x31, UInt8(ascii: "}")]))
        let deep = String(repeating: #"{"a":"#, count: 100) + "1" + String(repeating: "}", count: 100)
        XCTAssertFalse(JSONObjectSyntax.isObject(Array(deep.utf8)))
        let fine = String(repeating: #"{"a":"#, count: 10) + "1" + String(repeating: "}", count: 10)
        XCTAssertTrue(JSONObjectSyntax.isObject(Array(fine.utf8)))
    }
}
