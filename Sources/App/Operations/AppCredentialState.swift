import Foundation
import PushCore
import PushCrypto

/// What an operator needs to know of one app's credentials without seeing them: which kind,
/// how old the APNs provider token in use is (Apple refuses one older than an hour; pushgate
/// renews it after 50 minutes, so an older one means nothing was pushed since, or renewal
/// fails), and when a push certificate ends.
struct AppCredentialState: Sendable {
    let app: RegisteredApp
    /// "APNs key TEAM/KEY", "APNs certificate", "FCM service account EMAIL".
    let kind: String
    /// When the archived provider token of the app's signing key was issued (unix s).
    var providerTokenIssuedAt: Int64? = nil
    /// The push certificate's end, when it could be read.
    var certificateNotAfter: Date? = nil
    /// Why the credentials do not load, if they do not.
    var problem: String? = nil

    /// Every registered app's state: one catalog read and one archive read per APNs key.
    static func all(catalog: any AppCatalog, archive: any ProviderTokenArchive) throws -> [AppCredentialState] {
        try catalog.apps().sorted { $0.id < $1.id }.map { app in
            switch app.credentials {
            case .apnsToken(let teamID, let keyID, _):
                let issued = try archive.archivedProviderToken(teamID: teamID, keyID: keyID)?.issuedAt
                return AppCredentialState(app: app, kind: "APNs key \(teamID)/\(keyID)", providerTokenIssuedAt: issued)
            case .apnsCertificate(let certificatePEM, let privateKeyPEM):
                do {
                    let certificate = try APNsClientCertificate(
                        certificatePEM: certificatePEM, privateKeyPEM: privateKeyPEM)
                    return AppCredentialState(
                        app: app, kind: "APNs certificate",
                        certificateNotAfter: CredentialsCheck.date(openSSLTime: certificate.notAfter))
                } catch CryptoError.certificateExpired(let notAfter) {
                    return AppCredentialState(
                        app: app, kind: "APNs certificate",
                        certificateNotAfter: CredentialsCheck.date(openSSLTime: notAfter),
                        problem: "the certificate expired on \(notAfter)")
                } catch {
                    return AppCredentialState(
                        app: app, kind: "APNs certificate", problem: "the certificate does not load: \(error)")
                }
            case .fcmServiceAccount(let json, let projectID):
                let email = (try? ServiceAccount(json: json))?.clientEmail
                return AppCredentialState(
                    app: app, kind: "FCM service account \(email ?? "(unreadable)") of \(projectID)",
                    problem: email == nil ? "the service account does not load" : nil)
            case .webPush(let pem, _):
                let publicKey = try? VAPIDKey(pem: pem).publicKeyBase64URL()
                return AppCredentialState(
                    app: app, kind: "VAPID key \(publicKey.map { String($0.prefix(12)) + "…" } ?? "(unreadable)")",
                    problem: publicKey == nil ? "the VAPID key does not load" : nil)
            }
        }
    }
}
