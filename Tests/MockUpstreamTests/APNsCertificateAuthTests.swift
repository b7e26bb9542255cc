import Foundation
import MockUpstream
import XCTest

/// Certificate-based provider auth: a client certificate verified against the client CA.
final class APNsCertificateAuthTests: XCTestCase {
    private var apns: MockAPNs!

    override func setUpWithError() throws {
        apns = try startAPNs { $0.tls = .fixtureWithClientCertificates }
    }

    override func tearDown() {
        apns.shutdown()
    }

    private let pemCertificate = ["--cert", MockFixtures.clientCertificateFile, "--key", MockFixtures.clientKeyFile]

    func testClientCertificateAuthenticates() throws {
        let response = try apns.send(extraArguments: pemCertificate)
        XCTAssertEqual(response.status, 200, response.stderr + response.body)
        XCTAssertEqual(apns.requests.first?.auth, .certificate)
    }

    func testCertificateDefaultsTheTopicAndLimitsIt() throws {
        XCTAssertEqual(try apns.send(headers: ["apns-topic": ""], extraArguments: pemCertificate).status, 200)
        XCTAssertEqual(
            try apns.send(
                headers: ["apns-topic": "com.example.pushgate.voip", "apns-push-type": "voip"],
                extraArguments: pemCertificate
            ).status, 200)
        let other = try apns.send(headers: ["apns-topic": "com.example.other"], extraArguments: pemCertificate)
        XCTAssertEqual(other.status, 400)
        XCTAssertEqual(other.reason, "TopicDisallowed")
    }

    func testPKCS12Certificates() throws {
        let empty = try apns.send(extraArguments: ["--cert-type", "P12", "--cert", MockFixtures.clientP12File + ":"])
        XCTAssertEqual(empty.status, 200, empty.stderr)
        let protected = try apns.send(
            extraArguments: [
                "--cert-type", "P12", "--cert",
                MockFixtures.clientProtectedP12File + ":" + MockFixtures.clientProtectedP12Password,
            ])
        XCTAssertEqual(protected.status, 200, protected.stderr)
    }

    func testUntrustedCertificateFailsTheHandshake() throws {
        let response = try apns.send(
            extraArguments: [
                "--cert", MockFixtures.untrustedClientCertificateFile, "--key", MockFixtures.untrustedClientKeyFile,
            ])
        XCTAssertNotEqual(response.exitCode, 0)
        XCTAssertEqual(response.status, 0)
        XCTAssertEqual(apns.log.count, 0)
    }

    func testTokenAuthStillWorksWithoutACertificate() throws {
        XCTAssertEqual(try apns.send(providerToken: APNsTestKey.token()).status, 200)
        XCTAssertEqual(try apns.send().reason, "MissingProviderToken")
    }
}
