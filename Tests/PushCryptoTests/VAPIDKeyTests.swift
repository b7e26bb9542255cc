import PushCore
import XCTest

@testable import PushCrypto

final class VAPIDKeyTests: XCTestCase {
    func testAGeneratedKeyRoundTripsThroughPEMAndSignsWhatItsPublicKeyVerifies() throws {
        let key = try VAPIDKey.generate()
        let pem = try key.pem()
        XCTAssertTrue(pem.hasPrefix("-----BEGIN PRIVATE KEY-----"))
        let reloaded = try VAPIDKey(pem: pem)
        let publicKey = try reloaded.publicKey()
        XCTAssertEqual(publicKey.count, 65)
        XCTAssertEqual(publicKey.first, 0x04)
        XCTAssertEqual(try key.publicKey(), publicKey)
        XCTAssertEqual(Base64URL.decode(try key.publicKeyBase64URL()), publicKey)

        let token = try JWT.sign(claims: ["aud": .string("https://push.example")], using: reloaded)
        XCTAssertTrue(try JWT.verify(token, publicKeyPEM: key.publicKeyPEM()))
        XCTAssertFalse(try JWT.verify(token, publicKeyPEM: VAPIDKey.generate().publicKeyPEM()))
        XCTAssertNotEqual(try VAPIDKey.generate().publicKey(), publicKey)
    }

    func testRefusesKeysThatAreNoP256() throws {
        XCTAssertThrowsError(try VAPIDKey(pem: "not a key"))
    }
}
