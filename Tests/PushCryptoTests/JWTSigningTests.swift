import Foundation
import PushCore
import XCTest

@testable import PushCrypto

final class JWTSigningTests: XCTestCase {
    private func apnsKey() throws -> APNsSigningKey { try APNsSigningKey(pem: Fixture.text("AuthKey_TEST123456.p8")) }
    private func apnsPublicKey() throws -> JWTPublicKey {
        try JWTPublicKey(pem: Fixture.text("AuthKey_TEST123456.pub.pem"))
    }
    private func rsaPublicKey() throws -> JWTPublicKey { try JWTPublicKey(pem: Fixture.text("rsa-2048.pub.pem")) }
    private func account() throws -> ServiceAccount { try ServiceAccount(json: Fixture.text("service-account.json")) }

    func testProviderTokenHasApplesShape() throws {
        let token = try APNsProviderToken.sign(
            keyID: "TEST123456", teamID: "TEAM987654", issuedAt: 1_700_000_000, key: apnsKey())
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        XCTAssertEqual(parts.count, 3)
        // Sorted keys and no whitespace, so the first two parts are fixed for fixed inputs.
        XCTAssertEqual(String(parts[0]), Base64URL.encode(#"{"alg":"ES256","kid":"TEST123456"}"#))
        XCTAssertEqual(String(parts[1]), Base64URL.encode(#"{"iat":1700000000,"iss":"TEAM987654"}"#))
        XCTAssertEqual(Base64URL.decode(parts[2])?.count, 64, "r ‖ s, not DER")
        XCTAssertTrue(JWT.verify(token, with: try apnsPublicKey()))
    }

    func testAssertionHasGooglesShape() throws {
        let token = try account().assertion(scope: ServiceAccount.firebaseMessagingScope, issuedAt: 1_700_000_000)
        let decoded = try JWT.decode(token)
        XCTAssertEqual(
            decoded.header,
            [
                "alg": .string("RS256"), "kid": .string("0123456789abcdef0123456789abcdef01234567"),
                "typ": .string("JWT"),
            ])
        XCTAssertEqual(
            decoded.claims,
            [
                "iss": .string("pushgate-test@pushgate-test.iam.gserviceaccount.com"),
                "scope": .string("https://www.googleapis.com/auth/firebase.messaging"),
                "aud": .string("https://127.0.0.1/token"),
                "iat": .number(1_700_000_000),
                "exp": .number(1_700_003_600),
            ])
        XCTAssertEqual(decoded.signature.count, 256)
        XCTAssertEqual(
            String(token.split(separator: ".")[0]),
            Base64URL.encode(#"{"alg":"RS256","kid":"0123456789abcdef0123456789abcdef01234567","typ":"JWT"}"#))
        XCTAssertTrue(JWT.verify(token, with: try rsaPublicKey()))
    }

    func testAssertionWithoutKeyIDHasNoKid() throws {
        let account = try ServiceAccount(json: Fixture.text("service-account-no-key-id.json"))
        let decoded = try JWT.decode(account.assertion(scope: "s", issuedAt: 0))
        XCTAssertEqual(decoded.header, ["alg": .string("RS256"), "typ": .string("JWT")])
    }

    func testRS256IsDeterministic() throws {
        let account = try account()
        XCTAssertEqual(try account.assertion(scope: "s", issuedAt: 5), try account.assertion(scope: "s", issuedAt: 5))
    }

    func testHeaderCannotOverrideTheKeysAlgorithm() throws {
        let token = try JWT.sign(header: ["alg": .string("none")], claims: [:], using: apnsKey())
        XCTAssertEqual(try JWT.decode(token).header["alg"], .string("ES256"))
    }

    func testVerifyFromPEM() throws {
        let token = try APNsProviderToken.sign(keyID: "K", teamID: "T", issuedAt: 1, key: apnsKey())
        XCTAssertTrue(try JWT.verify(token, publicKeyPEM: Fixture.text("AuthKey_TEST123456.pub.pem")))
        XCTAssertFalse(try JWT.verify(token, publicKeyPEM: Fixture.text("rsa-2048.pub.pem")))
        XCTAssertThrowsMessage(
            try JWT.verify(token, publicKeyPEM: "nope"), "not PEM (expected -----BEGIN PUBLIC KEY-----)")
    }

    func testTamperedES256TokensAreRejected() throws {
        let token = try APNsProviderToken.sign(
            keyID: "TEST123456", teamID: "TEAM987654", issuedAt: 1_700_000_000, key: apnsKey())
        try assertTamperingDetected(token, with: apnsPublicKey())
    }

    func testTamperedRS256TokensAreRejected() throws {
        let token = try account().assertion(scope: "s", issuedAt: 1_700_000_000)
        try assertTamperingDetected(token, with: rsaPublicKey())
    }

    func testTokenSignedByAnotherKeyIsRejected() throws {
        let other = try APNsSigningKey(pem: Fixture.text("ec-p256-sec1.pem"))
        let token = try APNsProviderToken.sign(keyID: "K", teamID: "T", issuedAt: 1, key: other)
        XCTAssertTrue(JWT.verify(token, with: try JWTPublicKey(pem: other.publicKeyPEM())))
        XCTAssertFalse(JWT.verify(token, with: try apnsPublicKey()))
    }

    func testAlgorithmMustMatchTheKey() throws {
        // An RS256 token shown to an EC key, and an ES256 token relabelled RS256.
        let rs256 = try account().assertion(scope: "s", issuedAt: 1)
        XCTAssertFalse(JWT.verify(rs256, with: try apnsPublicKey()))
        let es256 = try APNsProviderToken.sign(keyID: "K", teamID: "T", issuedAt: 1, key: apnsKey())
        let parts = es256.split(separator: ".")
        let relabelled = Base64URL.encode(#"{"alg":"RS256","kid":"K"}"#) + "." + parts[1] + "." + parts[2]
        XCTAssertFalse(JWT.verify(relabelled, with: try rsaPublicKey()))
        XCTAssertFalse(JWT.verify(relabelled, with: try apnsPublicKey()))
    }

    /// About one signature in 128 has an r or s with a leading zero byte; DER drops it, JWS
    /// must not. Many signatures make such cases all but certain to occur.
    func testEverySignatureIs64BytesAndVerifies() throws {
        let key = try apnsKey()
        let publicKey = try apnsPublicKey()
        for issuedAt in 0..<1000 {
            let token = try APNsProviderToken.sign(keyID: "K", teamID: "T", issuedAt: issuedAt, key: key)
            let decoded = try JWT.decode(token)
            XCTAssertEqual(decoded.signature.count, 64)
            XCTAssertTrue(publicKey.isValidSignature(decoded.signature, for: decoded.signingInput), token)
        }
    }

    func testSignatureFormatConversionPadsShortIntegers() throws {
        // SEQUENCE { INTEGER 1, INTEGER 0x80 }: r is one byte; s needs DER's sign-guard zero.
        let der: [UInt8] = [0x30, 0x07, 0x02, 0x01, 0x01, 0x02, 0x02, 0x00, 0x80]
        let raw = try ECDSASignatureFormat.raw(fromDER: der)
        XCTAssertEqual(raw, [UInt8](repeating: 0, count: 31) + [0x01] + [UInt8](repeating: 0, count: 31) + [0x80])
        XCTAssertEqual(ECDSASignatureFormat.der(fromRaw: raw), der)
        XCTAssertNil(ECDSASignatureFormat.der(fromRaw: [UInt8](repeating: 1, count: 63)))
        XCTAssertThrowsError(try ECDSASignatureFormat.raw(fromDER: [0x30, 0x00, 0x01]))
    }

    func testSharedKeySignsFromManyThreads() throws {
        let key = try apnsKey()
        let rsa = try account()
        let ecPublic = try apnsPublicKey()
        let rsaPublic = try rsaPublicKey()
        let failures = FailureCounter()
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            for round in 0..<25 {
                let ok =
                    (try? APNsProviderToken.sign(keyID: "K", teamID: "T", issuedAt: thread * 100 + round, key: key))
                    .map { JWT.verify($0, with: ecPublic) } == true
                    && (try? rsa.assertion(scope: "s", issuedAt: round)).map { JWT.verify($0, with: rsaPublic) } == true
                if !ok { failures.add() }
            }
        }
        XCTAssertEqual(failures.value, 0)
    }

    func testMalformedTokensAreNamed() {
        XCTAssertThrowsMessage(try JWT.decode("a.b"), "malformed JWT: expected 3 parts separated by '.', found 2")
        XCTAssertThrowsMessage(try JWT.decode("e30=.e30.AA"), "malformed JWT: header is not base64url")
        XCTAssertThrowsMessage(try JWT.decode("e30.WzFd.AA"), "malformed JWT: claims is not a JSON object")
        XCTAssertThrowsMessage(try JWT.decode("e30.e30.A"), "malformed JWT: signature is not base64url")
        XCTAssertEqual(try JWT.decode("e30.e30.").signature, [])
    }

    private func assertTamperingDetected(_ token: String, with key: JWTPublicKey, line: UInt = #line) throws {
        XCTAssertTrue(JWT.verify(token, with: key), "the untouched token must verify", line: line)
        let parts = token.split(separator: ".").map(String.init)
        var claims = try JWT.decode(token).claims
        claims["iat"] = .number(2_000_000_000)
        let forgedClaims = Base64URL.encode(JSONValue.object(claims).encoded())
        var signature = try XCTUnwrap(Base64URL.decode(parts[2]))
        signature[signature.count / 2] ^= 0x01
        let tampered = [
            ("changed claims", "\(parts[0]).\(forgedClaims).\(parts[2])"),
            ("flipped signature bit", "\(parts[0]).\(parts[1]).\(Base64URL.encode(signature))"),
            ("truncated signature", "\(parts[0]).\(parts[1]).\(Base64URL.encode(signature.dropLast()))"),
            ("no signature", "\(parts[0]).\(parts[1])."),
            ("padded signature", "\(token)=="),
            ("extra part", "\(token).e30"),
        ]
        for (what, forged) in tampered {
            XCTAssertFalse(JWT.verify(forged, with: key), what, line: line)
        }
    }
}

/// Counts failures reported from concurrent closures.
private final class FailureCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0

    func add() {
        lock.withLock { count += 1 }
    }

    var value: Int { lock.withLock { count } }
}
