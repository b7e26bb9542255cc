import PushCore
import XCTest

@testable import PushCrypto

/// HS256, against published vectors: RFC 4231's HMAC-SHA256 and jwt.io's example token.
final class HS256Tests: XCTestCase {
    func testTheMACIsRFC4231s() {
        // RFC 4231 §4.3, test case 2.
        XCTAssertEqual(
            Hex.encode(HMACSHA256.mac(key: Array("Jefe".utf8), message: Array("what do ya want for nothing?".utf8))),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
    }

    func testATokenVerifiesWithItsSecretOnly() {
        let token =
            "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ"
            + ".SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
        XCTAssertEqual(HS256.verifiedClaims(token, secret: "your-256-bit-secret")?["sub"], .string("1234567890"))
        XCTAssertNil(HS256.verifiedClaims(token, secret: "your-256-bit-secreT"))
        // The claims changed under the same signature.
        let forged = token.replacingOccurrences(of: "eyJzdWIiOiIxMjM0NTY3ODkwIi", with: "eyJzdWIiOiIxMjM0NTY3ODkxIi")
        XCTAssertNil(HS256.verifiedClaims(forged, secret: "your-256-bit-secret"))
        // Another algorithm named in the header is not HS256, whatever the bytes.
        let none = "eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0" + token.drop { $0 != "." }
        XCTAssertNil(HS256.verifiedClaims(none, secret: "your-256-bit-secret"))
        XCTAssertNil(HS256.verifiedClaims("not.a.token", secret: "your-256-bit-secret"))
    }
}
