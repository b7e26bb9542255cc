/// A Google service account the mock FCM knows: its `client_email` (the assertion's `iss`), the
/// project it may send to, and the public half of its RSA key.
public struct MockFCMServiceAccount: Sendable, Equatable {
    public var clientEmail: String
    public var projectID: String
    /// SubjectPublicKeyInfo PEM of the RSA key.
    public var publicKeyPEM: String

    public init(clientEmail: String, projectID: String, publicKeyPEM: String) {
        self.clientEmail = clientEmail
        self.projectID = projectID
        self.publicKeyPEM = publicKeyPEM
    }

    /// The fixture account of `Tests/PushCryptoTests/Fixtures/service-account.json`
    /// (`rsa-2048.pem`, project `pushgate-test`).
    public static var fixture: MockFCMServiceAccount {
        get throws {
            MockFCMServiceAccount(
                clientEmail: MockFixtures.serviceAccountEmail, projectID: MockFixtures.firebaseProjectID,
                publicKeyPEM: try MockFixtures.text(MockFixtures.serviceAccountPublicKeyFile))
        }
    }
}
