import PushCrypto
import XCTest

final class ServiceAccountTests: XCTestCase {
    func testServiceAccountLoads() throws {
        let account = try ServiceAccount(json: Fixture.text("service-account.json"))
        XCTAssertEqual(account.projectID, "pushgate-test")
        XCTAssertEqual(account.clientEmail, "pushgate-test@pushgate-test.iam.gserviceaccount.com")
        XCTAssertEqual(account.tokenURI, "https://127.0.0.1/token")
        XCTAssertEqual(account.privateKeyID, "0123456789abcdef0123456789abcdef01234567")
        XCTAssertEqual(account.privateKey.bits, 2048)
        XCTAssertEqual(try account.privateKey.publicKeyPEM(), try Fixture.text("rsa-2048.pub.pem"))
    }

    func testPrivateKeyIDIsOptional() throws {
        let account = try ServiceAccount(json: Fixture.text("service-account-no-key-id.json"))
        XCTAssertNil(account.privateKeyID)
    }

    func testMissingPrivateKeyIsNamed() throws {
        XCTAssertThrowsMessage(
            try ServiceAccount(json: Fixture.text("service-account-no-private-key.json")),
            "service account JSON lacks private_key")
    }

    func testECPrivateKeyIsNamed() throws {
        XCTAssertThrowsMessage(
            try ServiceAccount(json: Fixture.text("service-account-ec-key.json")),
            "private_key is not an RSA key (found EC)")
    }

    func testNonPEMPrivateKeyIsNamed() throws {
        let json = try editedFixture { $0["private_key"] = "hello" }
        XCTAssertThrowsMessage(
            try ServiceAccount(json: json),
            "private_key is not PEM (expected -----BEGIN PRIVATE KEY----- or -----BEGIN RSA PRIVATE KEY-----)")
    }

    func testEachRequiredFieldIsNamedWhenMissing() throws {
        for field in ["type", "project_id", "client_email", "private_key", "token_uri"] {
            let json = try editedFixture { $0.removeValue(forKey: field) }
            XCTAssertThrowsMessage(try ServiceAccount(json: json), "service account JSON lacks \(field)")
        }
    }

    func testInvalidFieldsAreNamed() throws {
        XCTAssertThrowsMessage(
            try ServiceAccount(json: editedFixture { $0["project_id"] = 42 }),
            "service account field project_id is not a string")
        XCTAssertThrowsMessage(
            try ServiceAccount(json: editedFixture { $0["client_email"] = "" }),
            "service account field client_email is empty")
        XCTAssertThrowsMessage(
            try ServiceAccount(json: editedFixture { $0["token_uri"] = "127.0.0.1/token" }),
            "service account field token_uri is not an http(s) URL")
        XCTAssertThrowsMessage(
            try ServiceAccount(json: editedFixture { $0["type"] = "authorized_user" }),
            "service account JSON has type \"authorized_user\", expected \"service_account\"")
    }

    func testNonJSONIsRefused() throws {
        XCTAssertThrowsMessage(
            try ServiceAccount(json: Fixture.text("not-pem.txt")), "service account file is not JSON")
        XCTAssertThrowsMessage(try ServiceAccount(json: "[1, 2]"), "service account JSON is not an object")
        XCTAssertThrowsMessage(try ServiceAccount(jsonBytes: [0x7B, 0xFF, 0x7D]), "service account file is not JSON")
    }

    func testDescriptionNamesTheAccountButNotTheKey() throws {
        let account = try ServiceAccount(json: Fixture.text("service-account.json"))
        XCTAssertEqual(
            "\(account)", "ServiceAccount(pushgate-test@pushgate-test.iam.gserviceaccount.com, project pushgate-test)")
    }

    /// The good fixture with one change, as JSON text.
    private func editedFixture(_ edit: (inout [String: Any]) -> Void) throws -> String {
        let data = try Data(contentsOf: Fixture.url("service-account.json"))
        var object = try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        edit(&object)
        return String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self)
    }
}
