import PushCrypto
import XCTest

final class KeyLoadingTests: XCTestCase {
    func testAppleStyleP8Loads() throws {
        let key = try APNsSigningKey(pem: Fixture.text("AuthKey_TEST123456.p8"))
        XCTAssertEqual(key.algorithm, .es256)
    }

    func testSEC1ECKeyLoads() throws {
        XCTAssertNoThrow(try APNsSigningKey(pem: Fixture.text("ec-p256-sec1.pem")))
    }

    func testAPNsPublicKeyIsTheOneOpenSSLDerives() throws {
        let key = try APNsSigningKey(pem: Fixture.text("AuthKey_TEST123456.p8"))
        XCTAssertEqual(try key.publicKeyPEM(), try Fixture.text("AuthKey_TEST123456.pub.pem"))
    }

    func testNonPEMIsRefusedByName() throws {
        XCTAssertThrowsMessage(
            try APNsSigningKey(pem: Fixture.text("not-pem.txt")), "not PEM (expected -----BEGIN PRIVATE KEY-----)")
        XCTAssertThrowsMessage(try APNsSigningKey(pem: ""), "not PEM (expected -----BEGIN PRIVATE KEY-----)")
    }

    func testRSAKeyIsNotAnAPNsKey() throws {
        XCTAssertThrowsMessage(try APNsSigningKey(pem: Fixture.text("rsa-2048.pem")), "not an EC key (found RSA)")
    }

    func testEd25519KeyIsNotAnAPNsKey() throws {
        XCTAssertThrowsMessage(try APNsSigningKey(pem: Fixture.text("ed25519.pem")), "not an EC key (found ED25519)")
    }

    func testP384KeyNamesItsCurve() throws {
        XCTAssertThrowsMessage(
            try APNsSigningKey(pem: Fixture.text("ec-p384.p8")),
            "EC key on curve secp384r1, APNs needs P-256 (prime256v1)")
    }

    func testEncryptedKeyIsRefusedWithoutPrompting() throws {
        XCTAssertThrowsError(try APNsSigningKey(pem: Fixture.text("ec-p256-encrypted.p8"))) { error in
            XCTAssertEqual(error as? CryptoError, .encryptedKey)
            XCTAssertTrue("\(error)".hasPrefix("encrypted keys are not supported"), "\(error)")
        }
    }

    func testPublicKeyIsNotAPrivateKey() throws {
        XCTAssertThrowsMessage(
            try APNsSigningKey(pem: Fixture.text("AuthKey_TEST123456.pub.pem")),
            "PEM holds PUBLIC KEY, expected PRIVATE KEY")
    }

    func testCorruptPEMBodyReportsOpenSSLsReason() throws {
        let pem = "-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0w\n-----END PRIVATE KEY-----\n"
        XCTAssertThrowsError(try APNsSigningKey(pem: pem)) { error in
            guard case .openSSL(let operation, let details) = error as? CryptoError else {
                return XCTFail("expected an OpenSSL error, got \(error)")
            }
            XCTAssertTrue(operation.contains("PEM_read_bio_PrivateKey"), operation)
            XCTAssertTrue(details.contains("error:"), "OpenSSL's queue should be spelled out: \(details)")
        }
    }

    func testRSAKeyLoadsFromPKCS8AndPKCS1Alike() throws {
        let pkcs8 = try RSASigningKey(pem: Fixture.text("rsa-2048.pem"))
        let pkcs1 = try RSASigningKey(pem: Fixture.text("rsa-2048-pkcs1.pem"))
        XCTAssertEqual(pkcs8.bits, 2048)
        XCTAssertEqual(try pkcs8.publicKeyPEM(), try pkcs1.publicKeyPEM())
        XCTAssertEqual(try pkcs8.publicKeyPEM(), try Fixture.text("rsa-2048.pub.pem"))
    }

    func testBadRSAKeysAreRefusedByName() throws {
        XCTAssertThrowsMessage(
            try RSASigningKey(pem: Fixture.text("AuthKey_TEST123456.p8")), "not an RSA key (found EC)")
        XCTAssertThrowsMessage(
            try RSASigningKey(pem: Fixture.text("rsa-1024.pem")), "RSA key of 1024 bits, RS256 needs at least 2048")
        XCTAssertThrowsMessage(
            try RSASigningKey(pem: Fixture.text("not-pem.txt")),
            "not PEM (expected -----BEGIN PRIVATE KEY----- or -----BEGIN RSA PRIVATE KEY-----)")
    }

    func testPublicKeysChooseTheirAlgorithm() throws {
        XCTAssertEqual(try JWTPublicKey(pem: Fixture.text("AuthKey_TEST123456.pub.pem")).algorithm, .es256)
        XCTAssertEqual(try JWTPublicKey(pem: Fixture.text("rsa-2048.pub.pem")).algorithm, .rs256)
    }

    func testBadPublicKeysAreRefusedByName() throws {
        XCTAssertThrowsMessage(
            try JWTPublicKey(pem: Fixture.text("ec-p384.pub.pem")),
            "EC key on curve secp384r1, ES256 needs P-256 (prime256v1)")
        XCTAssertThrowsMessage(
            try JWTPublicKey(pem: Fixture.text("AuthKey_TEST123456.p8")), "PEM holds PRIVATE KEY, expected PUBLIC KEY")
        XCTAssertThrowsMessage(try JWTPublicKey(pem: "hello"), "not PEM (expected -----BEGIN PUBLIC KEY-----)")
    }

    func testDescriptionsNeverShowKeyMaterial() throws {
        let apns = try APNsSigningKey(pem: Fixture.text("AuthKey_TEST123456.p8"))
        let rsa = try RSASigningKey(pem: Fixture.text("rsa-2048.pem"))
        XCTAssertEqual("\(apns)", "APNsSigningKey(EC P-256)")
        XCTAssertEqual("\(rsa)", "RSASigningKey(2048 bits)")
    }
}
