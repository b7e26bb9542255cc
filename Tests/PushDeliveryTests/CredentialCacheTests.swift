import PushCore
import XCTest

@testable import PushDelivery

/// Parsed credentials are kept per app and used only while the app's credentials are the ones
/// they were parsed from: an operator's `apps add --replace` reaches the next push of a
/// running `serve`, whichever way the credentials changed.
final class CredentialCacheTests: XCTestCase {
    private func apnsApp(keyID: String, pem: String = TestKeys.apnsKey) -> RegisteredApp {
        RegisteredApp(
            id: AppID("com.example.voip")!,
            credentials: .apnsToken(teamID: "TEAM123456", keyID: keyID, privateKeyPEM: pem))
    }

    private func keyID(_ result: Result<APNsAuthentication, CredentialError>) -> String? {
        guard case .success(.token(let key)) = result else { return nil }
        return key.keyID
    }

    func testAReplacedKeyIsParsedAgainUnderTheSameApp() {
        let cache = CredentialCache()
        XCTAssertEqual(keyID(cache.apnsAuthentication(for: apnsApp(keyID: "KEY1111111"))), "KEY1111111")
        XCTAssertEqual(keyID(cache.apnsAuthentication(for: apnsApp(keyID: "KEY1111111"))), "KEY1111111")
        XCTAssertEqual(keyID(cache.apnsAuthentication(for: apnsApp(keyID: "KEY2222222"))), "KEY2222222")
        XCTAssertEqual(keyID(cache.apnsAuthentication(for: apnsApp(keyID: "KEY1111111"))), "KEY1111111")
    }

    func testABrokenKeyIsRefusedAndItsReplacementUsed() {
        let cache = CredentialCache()
        guard case .failure(let error) = cache.apnsAuthentication(for: apnsApp(keyID: "KEY1111111", pem: "not a key"))
        else { return XCTFail("a key that does not parse is refused") }
        XCTAssertEqual(error.app, AppID("com.example.voip"))
        XCTAssertEqual(keyID(cache.apnsAuthentication(for: apnsApp(keyID: "KEY1111111"))), "KEY1111111")
    }

    func testAnAppThatChangesPlatformGetsItsNewCredentials() {
        let cache = CredentialCache()
        XCTAssertNotNil(keyID(cache.apnsAuthentication(for: apnsApp(keyID: "KEY1111111"))))
        let android = RegisteredApp(
            id: AppID("com.example.voip")!,
            credentials: .fcmServiceAccount(json: TestKeys.serviceAccountJSON(tokenURI: "https://oauth.test/token"), projectID: "p1"))
        guard case .success(let account) = cache.fcmAccount(for: android) else { return XCTFail("the service account parses") }
        XCTAssertEqual(account.projectID, "p1")
        guard case .failure = cache.apnsAuthentication(for: android) else {
            return XCTFail("an FCM app has no APNs credentials, whatever was cached under its id")
        }
    }

    func testTwoAppsWithTheirOwnKeysKeepThem() {
        let cache = CredentialCache()
        let other = RegisteredApp(
            id: AppID("com.example.other")!,
            credentials: .apnsToken(teamID: "TEAM123456", keyID: "KEY3333333", privateKeyPEM: TestKeys.apnsKey))
        XCTAssertEqual(keyID(cache.apnsAuthentication(for: apnsApp(keyID: "KEY1111111"))), "KEY1111111")
        XCTAssertEqual(keyID(cache.apnsAuthentication(for: other)), "KEY3333333")
        XCTAssertEqual(keyID(cache.apnsAuthentication(for: apnsApp(keyID: "KEY1111111"))), "KEY1111111")
    }
}
