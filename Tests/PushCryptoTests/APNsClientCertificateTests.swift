import Foundation
import PushCrypto
import XCTest

/// Certificate-based APNs credentials, with the TLS fixtures the mock servers use.
final class APNsClientCertificateTests: XCTestCase {
    private let tls = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/tls")

    private func text(_ name: String) throws -> String {
        try String(contentsOf: tls.appendingPathComponent(name), encoding: .utf8)
    }

    private func bytes(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: tls.appendingPathComponent(name)))
    }

    func testAPEMCertificateWithItsKey() throws {
        let credential = try APNsClientCertificate(certificatePEM: text("client.pem"), privateKeyPEM: text("client.key"))
        XCTAssertTrue(credential.certificatePEM.hasPrefix("-----BEGIN CERTIFICATE-----"))
        XCTAssertTrue(credential.privateKeyPEM.hasPrefix("-----BEGIN PRIVATE KEY-----"))
        XCTAssertFalse(credential.subject.isEmpty)
        XCTAssertTrue(credential.notAfter.hasSuffix("GMT"), credential.notAfter)
        XCTAssertFalse(credential.description.contains("PRIVATE KEY"))
    }

    func testPKCS12WithAndWithoutPassword() throws {
        let pem = try APNsClientCertificate(certificatePEM: text("client.pem"), privateKeyPEM: text("client.key"))
        let open = try APNsClientCertificate(pkcs12: bytes("client.p12"), password: "")
        XCTAssertEqual(open.certificatePEM, pem.certificatePEM)
        XCTAssertEqual(open.subject, pem.subject)
        let protected = try APNsClientCertificate(pkcs12: bytes("client-protected.p12"), password: "test-only")
        XCTAssertEqual(protected.certificatePEM, pem.certificatePEM)
        XCTAssertThrowsError(try APNsClientCertificate(pkcs12: bytes("client-protected.p12"), password: "wrong")) {
            XCTAssertTrue("\($0)".contains("wrong password"), "\($0)")
        }
        XCTAssertThrowsError(try APNsClientCertificate(pkcs12: Array("not pkcs12".utf8), password: "")) {
            XCTAssertTrue("\($0)".contains("not a PKCS#12 file"), "\($0)")
        }
    }

    func testRefusesAKeyOfAnotherCertificateAndNonCertificates() throws {
        XCTAssertThrowsError(
            try APNsClientCertificate(certificatePEM: text("client.pem"), privateKeyPEM: text("untrusted-client.key"))
        ) { XCTAssertEqual($0 as? CryptoError, .keyDoesNotMatchCertificate) }
        XCTAssertThrowsError(
            try APNsClientCertificate(certificatePEM: text("client.key"), privateKeyPEM: text("client.key"))
        ) { XCTAssertEqual($0 as? CryptoError, .unexpectedPEM(found: "PRIVATE KEY", expected: "CERTIFICATE")) }
        XCTAssertThrowsError(try APNsClientCertificate(certificatePEM: "junk", privateKeyPEM: text("client.key"))) {
            XCTAssertEqual($0 as? CryptoError, .notPEM(expected: "-----BEGIN CERTIFICATE-----"))
        }
    }
}
