import Foundation
import PushCrypto
import XCTest

final class Base64URLTests: XCTestCase {
    /// RFC 4648 §10, without the padding JWS leaves off.
    func testRFC4648Vectors() {
        let vectors = [
            "": "", "f": "Zg", "fo": "Zm8", "foo": "Zm9v", "foob": "Zm9vYg", "fooba": "Zm9vYmE", "foobar": "Zm9vYmFy",
        ]
        for (plain, encoded) in vectors {
            XCTAssertEqual(Base64URL.encode(plain), encoded)
            XCTAssertEqual(Base64URL.decode(encoded), Array(plain.utf8))
        }
    }

    func testURLSafeAlphabet() {
        XCTAssertEqual(Base64URL.encode([0xFB, 0xFF]), "-_8")
        XCTAssertEqual(Base64URL.encode([0xFF, 0xFF, 0xFE]), "___-")
        XCTAssertEqual(Base64URL.decode("-_8"), [0xFB, 0xFF])
    }

    func testAgreesWithFoundationForEveryLength() {
        var generator = SystemRandomNumberGenerator()
        for length in 0...70 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let foundation = Data(bytes).base64EncodedString()
                .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
            XCTAssertEqual(Base64URL.encode(bytes), foundation)
            XCTAssertEqual(Base64URL.decode(foundation), bytes)
        }
    }

    func testDecodingIsStrict() {
        XCTAssertNil(Base64URL.decode("Zg=="), "padding")
        XCTAssertNil(Base64URL.decode("Zm8="), "padding")
        XCTAssertNil(Base64URL.decode("+/8"), "standard alphabet")
        XCTAssertNil(Base64URL.decode("Zm9v YmFy"), "space")
        XCTAssertNil(Base64URL.decode("Zm9vYmFy\n"), "newline")
        XCTAssertNil(Base64URL.decode("Z"), "a lone character encodes no byte")
        XCTAssertNil(Base64URL.decode("Zm9vY"), "length 1 mod 4")
        XCTAssertNil(Base64URL.decode("Zh"), "non-zero unused bits: a second spelling of \"f\"")
        XCTAssertNil(Base64URL.decode("Zm9"), "non-zero unused bits: a second spelling of \"fo\"")
        XCTAssertNil(Base64URL.decode("Zm9vé"), "non-ASCII")
    }
}
