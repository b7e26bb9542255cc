import Foundation
import PushCore
import PushCrypto
import XCTest

/// VAPID keys and headers (RFC 8292), checked by our verifier and by Python's `cryptography`.
final class VAPIDTests: XCTestCase {
    func testKeysOtherThanP256AreRefusedWithTheReason() throws {
        XCTAssertThrowsMessage(
            try VAPIDKey(pem: Fixture.text("ec-p384.p8")), "EC key on curve secp384r1, VAPID needs P-256 (prime256v1)")
        XCTAssertThrowsMessage(try VAPIDKey(pem: Fixture.text("rsa-2048.pem")), "not an EC key (found RSA)")
        XCTAssertThrowsMessage(try VAPIDKey(pem: "hello"), "not PEM (expected -----BEGIN PRIVATE KEY-----)")
        XCTAssertEqual(
            try VAPIDKey(pem: Fixture.text("ec-p256-sec1.pem")).publicKey().count, 65, "SEC1 P-256 keys load too")
    }

    func testAuthorizationHeaderVerifiesAgainstItsOwnKey() throws {
        let key = try VAPIDKey.generate()
        let token = try VAPIDToken.sign(
            audience: "https://push.example.net", subject: "mailto:ops@example.com", expiresAt: 1_700_086_400, key: key)
        let header = try VAPIDToken.authorization(token: token, key: key)
        XCTAssertTrue(header.hasPrefix("vapid t="), header)
        XCTAssertTrue(header.hasSuffix(", k=\(try key.publicKeyBase64URL())"), header)

        let parsed = try XCTUnwrap(VAPIDAuthorization(header: header))
        XCTAssertEqual(parsed.publicKey, try key.publicKey())
        let claims = try XCTUnwrap(parsed.verifiedClaims()).claims
        XCTAssertEqual(claims["aud"], .string("https://push.example.net"))
        XCTAssertEqual(claims["sub"], .string("mailto:ops@example.com"))
        XCTAssertEqual(claims["exp"], .number(1_700_086_400))

        let otherKey = try VAPIDKey.generate()
        let forged = try XCTUnwrap(VAPIDAuthorization(header: "vapid t=\(token), k=\(try otherKey.publicKeyBase64URL())"))
        XCTAssertNil(forged.verifiedClaims(), "a token verifies only against the key that signed it")
    }

    func testMalformedAuthorizationHeadersAreNotRead() {
        for header in [
            "", "Bearer abc", "vapid t=abc", "vapid k=BBBB", "vapid t=a.b.c, k=not base64!", "vapid t=a.b.c k=AAAA",
            "WebPush abc",
        ] {
            XCTAssertNil(VAPIDAuthorization(header: header), header)
        }
        let garbage = VAPIDAuthorization(header: "vapid t=a.b.c, k=AAAA")
        XCTAssertNotNil(garbage)
        XCTAssertNil(garbage?.verifiedClaims(), "a k that is not a P-256 point verifies nothing")
    }

    func testPythonVerifiesVAPIDHeader() throws {
        let key = try VAPIDKey.generate()
        // Many signatures, so that r or s with a leading zero byte is covered too.
        for expiresAt in 1_700_000_000..<1_700_000_200 {
            let token = try VAPIDToken.sign(
                audience: "https://127.0.0.1:8443", subject: "https://example.com/contact", expiresAt: expiresAt,
                key: key)
            let signature = try JWT.decode(token).signature
            guard expiresAt == 1_700_000_000 || signature[0] == 0 || signature[32] == 0 else { continue }
            let result = try PythonVAPIDVerifier.run(
                authorization: try VAPIDToken.authorization(token: token, key: key),
                expectedHeader: #"{"alg":"ES256","typ":"JWT"}"#,
                expectedClaims: #"{"aud":"https://127.0.0.1:8443","exp":\#(expiresAt),"sub":"https://example.com/contact"}"#
            )
            XCTAssertEqual(result.status, 0, result.output)
        }
    }

    func testPythonRejectsHeaderWithAnotherKey() throws {
        let token = try VAPIDToken.sign(
            audience: "https://a.example", subject: "mailto:a@example.com", expiresAt: 1, key: VAPIDKey.generate())
        let result = try PythonVAPIDVerifier.run(
            authorization: try VAPIDToken.authorization(token: token, key: VAPIDKey.generate()),
            expectedHeader: #"{"alg":"ES256","typ":"JWT"}"#,
            expectedClaims: #"{"aud":"https://a.example","exp":1,"sub":"mailto:a@example.com"}"#)
        XCTAssertEqual(result.status, 1, "expected 'signature invalid': \(result.output)")
    }
}

/// Runs `Fixtures/verify_vapid.py` (see PythonVerifier for why a missing Python fails).
enum PythonVAPIDVerifier {
    static func run(
        authorization: String, expectedHeader: String, expectedClaims: String,
        file: StaticString = #filePath, line: UInt = #line
    ) throws -> PythonVerifier.Result {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pushcrypto-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let files = ["authorization.txt": authorization, "header.json": expectedHeader, "claims.json": expectedClaims]
        for (name, contents) in files {
            try contents.write(to: directory.appendingPathComponent(name), atomically: true, encoding: .utf8)
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments =
            ["python3", try Fixture.url("verify_vapid.py").path]
            + ["authorization.txt", "header.json", "claims.json"].map { directory.appendingPathComponent($0).path }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        switch process.terminationStatus {
        case 127: XCTFail("python3 not found: \(output)", file: file, line: line)
        case 3: XCTFail("the Python package cryptography is missing: \(output)", file: file, line: line)
        case 4: XCTFail("verify_vapid.py usage error: \(output)", file: file, line: line)
        default: break
        }
        return PythonVerifier.Result(status: process.terminationStatus, output: output)
    }
}
