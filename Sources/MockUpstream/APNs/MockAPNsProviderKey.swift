/// A token-auth signing key the mock APNs knows: the public half of a `.p8`, its key id (the
/// JWT's `kid`) and the team id its tokens must name as `iss`.
public struct MockAPNsProviderKey: Sendable, Equatable {
    public var keyID: String
    public var teamID: String
    /// SubjectPublicKeyInfo PEM of the EC P-256 key.
    public var publicKeyPEM: String

    public init(keyID: String, teamID: String, publicKeyPEM: String) {
        self.keyID = keyID
        self.teamID = teamID
        self.publicKeyPEM = publicKeyPEM
    }

    /// The committed test key `AuthKey_TEST123456.p8` (key id `TEST123456`), team `TEAM123456`.
    public static var fixture: MockAPNsProviderKey {
        get throws {
            MockAPNsProviderKey(
                keyID: MockFixtures.apnsKeyID, teamID: MockFixtures.apnsTeamID,
                publicKeyPEM: try MockFixtures.text(MockFixtures.apnsPublicKeyFile))
        }
    }
}
