import Foundation

/// Paths of the committed test-only keys and certificates the mocks and their clients use:
/// `Tests/Fixtures/tls` (see its README) and the PushCrypto test keys. Found from this source
/// file's location, so they resolve from any test target or script run in the checkout.
public enum MockFixtures {
    /// The checkout's root directory.
    public static let repositoryRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // Fixtures
        .deletingLastPathComponent()  // MockUpstream
        .deletingLastPathComponent()  // Sources
        .deletingLastPathComponent()

    /// A file of `Tests/Fixtures/tls`.
    public static func tls(_ name: String) -> String {
        repositoryRoot.appendingPathComponent("Tests/Fixtures/tls").appendingPathComponent(name).path
    }

    /// The CA that signed the mocks' server certificate: what a client must trust.
    public static var caFile: String { tls("ca.pem") }
    /// The provider client certificate and key (certificate-based APNs auth), PEM.
    public static var clientCertificateFile: String { tls("client.pem") }
    public static var clientKeyFile: String { tls("client.key") }
    /// The same as PKCS#12 with an empty password, and with password `test-only`.
    public static var clientP12File: String { tls("client.p12") }
    public static var clientProtectedP12File: String { tls("client-protected.p12") }
    public static let clientProtectedP12Password = "test-only"
    /// A client certificate no configured CA signed.
    public static var untrustedClientCertificateFile: String { tls("untrusted-client.pem") }
    public static var untrustedClientKeyFile: String { tls("untrusted-client.key") }

    /// A file of `Tests/PushCryptoTests/Fixtures`.
    public static func crypto(_ name: String) -> String {
        repositoryRoot.appendingPathComponent("Tests/PushCryptoTests/Fixtures").appendingPathComponent(name).path
    }

    /// The APNs token-auth key `AuthKey_TEST123456.p8`, its public key, its key id, and the team
    /// id the mocks register it under.
    public static var apnsKeyFile: String { crypto("AuthKey_TEST123456.p8") }
    public static var apnsPublicKeyFile: String { crypto("AuthKey_TEST123456.pub.pem") }
    public static let apnsKeyID = "TEST123456"
    public static let apnsTeamID = "TEAM123456"

    /// The RSA-2048 key of the fixture service account, and its public half.
    public static var serviceAccountKeyFile: String { crypto("rsa-2048.pem") }
    public static var serviceAccountPublicKeyFile: String { crypto("rsa-2048.pub.pem") }
    public static let serviceAccountEmail = "pushgate-test@pushgate-test.iam.gserviceaccount.com"
    public static let firebaseProjectID = "pushgate-test"

    public static func text(_ path: String) throws -> String {
        try String(contentsOfFile: path, encoding: .utf8)
    }
}
