import Foundation
import PushCrypto
import XCTest

/// Checks pushgate's JWTs with a second implementation (Python `cryptography`, via
/// `Fixtures/verify_jwt.py`), so that a mistake shared by our signer and our verifier cannot
/// pass unnoticed. Python is required, not optional: CI installs it, and a skipped check here
/// would silently drop the only outside opinion on our signatures.
final class IndependentVerificationTests: XCTestCase {
    func testPythonVerifiesES256ProviderToken() throws {
        let key = try APNsSigningKey(pem: Fixture.text("AuthKey_TEST123456.p8"))
        let token = try APNsProviderToken.sign(
            keyID: "TEST123456", teamID: "TEAM987654", issuedAt: 1_700_000_000, key: key)
        let result = try PythonVerifier.run(
            algorithm: "ES256", publicKeyPEM: key.publicKeyPEM(), token: token,
            expectedHeader: #"{"alg":"ES256","kid":"TEST123456"}"#,
            expectedClaims: #"{"iss":"TEAM987654","iat":1700000000}"#)
        XCTAssertEqual(result.status, 0, result.output)
    }

    func testPythonVerifiesRS256Assertion() throws {
        let account = try ServiceAccount(json: Fixture.text("service-account.json"))
        let token = try account.assertion(scope: ServiceAccount.firebaseMessagingScope, issuedAt: 1_700_000_000)
        let result = try PythonVerifier.run(
            algorithm: "RS256", publicKeyPEM: Fixture.text("rsa-2048.pub.pem"), token: token,
            expectedHeader: #"{"alg":"RS256","typ":"JWT","kid":"0123456789abcdef0123456789abcdef01234567"}"#,
            expectedClaims: """
                {"iss":"pushgate-test@pushgate-test.iam.gserviceaccount.com",
                 "scope":"https://www.googleapis.com/auth/firebase.messaging",
                 "aud":"https://127.0.0.1/token","iat":1700000000,"exp":1700003600}
                """)
        XCTAssertEqual(result.status, 0, result.output)
    }

    /// Many ES256 tokens in one run, so that signatures whose r or s has a leading zero byte
    /// (about 1 in 128) are checked by the outside implementation too.
    func testPythonVerifiesManyES256Signatures() throws {
        let key = try APNsSigningKey(pem: Fixture.text("AuthKey_TEST123456.p8"))
        let publicKeyPEM = try key.publicKeyPEM()
        var shortIntegerSeen = false
        for issuedAt in 0..<2000 {
            let token = try APNsProviderToken.sign(keyID: "K", teamID: "T", issuedAt: issuedAt, key: key)
            let signature = try JWT.decode(token).signature
            guard signature[0] == 0 || signature[32] == 0 else { continue }
            shortIntegerSeen = true
            let result = try PythonVerifier.run(
                algorithm: "ES256", publicKeyPEM: publicKeyPEM, token: token,
                expectedHeader: #"{"alg":"ES256","kid":"K"}"#, expectedClaims: #"{"iss":"T","iat":\#(issuedAt)}"#)
            XCTAssertEqual(result.status, 0, result.output)
            break
        }
        XCTAssertTrue(shortIntegerSeen, "2000 signatures without a leading zero byte: astronomically unlikely")
    }

    func testPythonRejectsTamperedToken() throws {
        let key = try APNsSigningKey(pem: Fixture.text("AuthKey_TEST123456.p8"))
        let token = try APNsProviderToken.sign(keyID: "K", teamID: "T", issuedAt: 1, key: key)
        let parts = token.split(separator: ".")
        var signature = try XCTUnwrap(Base64URL.decode(parts[2]))
        signature[10] ^= 0x40
        let tampered = "\(parts[0]).\(parts[1]).\(Base64URL.encode(signature))"
        let result = try PythonVerifier.run(
            algorithm: "ES256", publicKeyPEM: key.publicKeyPEM(), token: tampered,
            expectedHeader: #"{"alg":"ES256","kid":"K"}"#, expectedClaims: #"{"iss":"T","iat":1}"#)
        XCTAssertEqual(result.status, 1, "expected 'signature invalid': \(result.output)")
    }

    func testPythonNoticesWrongClaims() throws {
        let key = try APNsSigningKey(pem: Fixture.text("AuthKey_TEST123456.p8"))
        let token = try APNsProviderToken.sign(keyID: "K", teamID: "T", issuedAt: 1, key: key)
        let result = try PythonVerifier.run(
            algorithm: "ES256", publicKeyPEM: key.publicKeyPEM(), token: token,
            expectedHeader: #"{"alg":"ES256","kid":"K"}"#, expectedClaims: #"{"iss":"T","iat":2}"#)
        XCTAssertEqual(result.status, 2, "expected a claims mismatch: \(result.output)")
    }
}

/// Runs `Fixtures/verify_jwt.py` on a token written to a fresh temporary directory.
enum PythonVerifier {
    struct Result {
        let status: Int32
        let output: String
    }

    static func run(
        algorithm: String, publicKeyPEM: String, token: String, expectedHeader: String, expectedClaims: String,
        file: StaticString = #filePath, line: UInt = #line
    ) throws -> Result {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pushcrypto-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let files = [
            "key.pem": publicKeyPEM, "token.txt": token, "header.json": expectedHeader, "claims.json": expectedClaims,
        ]
        for (name, contents) in files {
            try contents.write(to: directory.appendingPathComponent(name), atomically: true, encoding: .utf8)
        }

        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments =
            ["python3", try Fixture.url("verify_jwt.py").path, algorithm]
            + ["key.pem", "token.txt", "header.json", "claims.json"].map { directory.appendingPathComponent($0).path }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let result = Result(status: process.terminationStatus, output: output)

        // Missing tools fail loudly: this check must not quietly stop running.
        switch result.status {
        case 127:
            XCTFail(
                "python3 not found; install Python 3 and `pip install cryptography`: \(output)", file: file, line: line)
        case 3:
            XCTFail(
                "the Python package cryptography is missing; `pip install cryptography`: \(output)", file: file,
                line: line)
        case 4:
            XCTFail("verify_jwt.py usage error: \(output)", file: file, line: line)
        default:
            break
        }
        return result
    }
}
