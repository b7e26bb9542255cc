import Foundation
import MockUpstream
import PushCore
import PushCrypto
import XCTest

/// The OAuth token endpoint: JWT-bearer grants with RS256 assertions, over HTTP/2 and HTTP/1.1.
final class FCMOAuthTests: XCTestCase {
    private var fcm: MockFCM!
    private var account: ServiceAccount!
    private var now: Int { Int(Date().timeIntervalSince1970) }

    override func setUpWithError() throws {
        fcm = try startFCM()
        account = try fcm.serviceAccount()
    }

    override func tearDown() {
        fcm.shutdown()
    }

    func testServiceAccountHelperPointsAtTheMock() throws {
        XCTAssertEqual(account.tokenURI, "https://127.0.0.1:\(fcm.port)/token")
        XCTAssertEqual(account.projectID, MockFixtures.firebaseProjectID)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("sa-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: file) }
        try fcm.writeServiceAccount(to: file)
        XCTAssertEqual(try ServiceAccount(json: String(contentsOf: file, encoding: .utf8)).tokenURI, fcm.tokenURI)
    }

    func testValidAssertionGetsAnAccessToken() throws {
        for http1 in [false, true] {
            let response = try fcm.requestToken(
                assertion: account.assertion(scope: ServiceAccount.firebaseMessagingScope, issuedAt: now), http1: http1)
            XCTAssertEqual(response.status, 200, response.body)
            XCTAssertEqual(response.httpVersion, http1 ? "1.1" : "2")
            XCTAssertEqual(response.json?["token_type"] as? String, "Bearer")
            XCTAssertEqual(response.json?["expires_in"] as? Int, 3599)
            XCTAssertTrue((response.json?["access_token"] as? String)?.hasPrefix("ya29.") == true)
        }
        XCTAssertEqual(fcm.accessTokensIssued, 2)
        XCTAssertEqual(fcm.tokenRequestCount, 2)
        XCTAssertEqual(fcm.tokenRequests.count, 2)
        XCTAssertEqual(fcm.tokenRequests.first?.auth, .assertion(clientEmail: MockFixtures.serviceAccountEmail))
    }

    func testWrongGrantType() throws {
        let response = try fcm.requestToken(assertion: "x", grantType: "client_credentials")
        XCTAssertEqual(response.status, 400)
        XCTAssertEqual(response.json?["error"] as? String, "unsupported_grant_type")
    }

    func testTamperedSignatureIsInvalidGrant() throws {
        var assertion = try account.assertion(scope: ServiceAccount.firebaseMessagingScope, issuedAt: now)
        let signatureStart = assertion.index(after: assertion.lastIndex(of: ".")!)
        assertion.replaceSubrange(signatureStart...signatureStart, with: assertion[signatureStart] == "A" ? "B" : "A")
        let response = try fcm.requestToken(assertion: assertion)
        XCTAssertEqual(response.status, 400)
        XCTAssertEqual(response.json?["error"] as? String, "invalid_grant")
        XCTAssertEqual(response.json?["error_description"] as? String, "Invalid JWT Signature.")
    }

    func testClaimsAreChecked() throws {
        let key = account.privateKey
        func assertion(_ claims: [String: JSONValue]) throws -> String {
            var all: [String: JSONValue] = [
                "iss": .string(account.clientEmail), "scope": .string(ServiceAccount.firebaseMessagingScope),
                "aud": .string(fcm.tokenURI), "iat": .number(Double(now)), "exp": .number(Double(now + 3600)),
            ]
            all.merge(claims) { $1 }
            return try JWT.sign(header: ["typ": .string("JWT")], claims: all, using: key)
        }
        func error(_ claims: [String: JSONValue]) throws -> (String?, String?) {
            let response = try fcm.requestToken(assertion: assertion(claims))
            XCTAssertEqual(response.status, 400)
            return (response.json?["error"] as? String, response.json?["error_description"] as? String)
        }
        XCTAssertEqual(try error(["iss": .string("someone@else.iam.gserviceaccount.com")]).0, "invalid_grant")
        let audience = try error(["aud": .string("https://oauth2.googleapis.com/token")])
        XCTAssertEqual(audience.0, "invalid_grant")
        XCTAssertTrue(audience.1?.contains("Failed audience check") == true)
        XCTAssertEqual(try error(["exp": .number(Double(now + 7200))]).0, "invalid_grant", "longer than an hour")
        XCTAssertEqual(
            try error(["iat": .number(Double(now - 7200)), "exp": .number(Double(now - 3600))]).0, "invalid_grant")
        XCTAssertEqual(try error(["scope": .string("")]).0, "invalid_scope")
    }

    func testTokenEndpointFaults() throws {
        fcm.injectTokenEndpointFault(.status(500, reason: "internal_failure"))
        let failed = try fcm.requestToken(
            assertion: account.assertion(scope: ServiceAccount.firebaseMessagingScope, issuedAt: now))
        XCTAssertEqual(failed.status, 500)
        XCTAssertEqual(failed.json?["error"] as? String, "internal_failure")
        XCTAssertEqual(
            try fcm.requestToken(
                assertion: account.assertion(scope: ServiceAccount.firebaseMessagingScope, issuedAt: now)
            ).status, 200)
    }
}
