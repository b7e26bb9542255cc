import PushCore
import PushCrypto

/// Parsed app credentials, so that a push does not parse a PEM key or a service-account JSON
/// (~100 µs–1 ms). Kept per app together with the credentials they were parsed from, and used
/// only while the app's credentials are still those: `apps add --replace` with a new key takes
/// effect on the next push without anyone invalidating anything. Compared, not hashed: the
/// catalog hands every push the same strings, and `==` of a string with itself returns at once.
final class CredentialCache: Sendable {
    private typealias Parsed<Value> = Locked<[AppID: (credentials: AppCredentials, value: Result<Value, CredentialError>)]>
    private let providerKeys = Parsed<ProviderKey>([:])
    private let identities = Parsed<ClientIdentity>([:])
    private let serviceAccounts = Parsed<ServiceAccount>([:])
    private let vapidKeys = Parsed<VAPIDKey>([:])
    /// Beyond this many apps the cache starts over (removed apps linger otherwise).
    private let capacity = 1024

    /// How APNs requests of `app` authenticate.
    func apnsAuthentication(for app: RegisteredApp) -> Result<APNsAuthentication, CredentialError> {
        switch app.credentials {
        case .apnsToken(let teamID, let keyID, let pem):
            return cached(app, in: providerKeys) {
                do {
                    return .success(try ProviderKey(teamID: teamID, keyID: keyID, pem: pem))
                } catch {
                    return .failure(CredentialError(app: app.id, reason: "APNs key: \(error)"))
                }
            }.map(APNsAuthentication.token).mapError { $0.naming(app.id) }
        case .apnsCertificate(let certificatePEM, let privateKeyPEM):
            // libcurl parses these per connection; cached only so that pushes share one copy.
            return cached(app, in: identities) {
                .success(.pem(certificate: Array(certificatePEM.utf8), privateKey: Array(privateKeyPEM.utf8)))
            }.map(APNsAuthentication.certificate)
        case .fcmServiceAccount:
            return .failure(CredentialError(app: app.id, reason: "an FCM app has no APNs credentials"))
        case .webPush:
            return .failure(CredentialError(app: app.id, reason: "a web app has no APNs credentials"))
        }
    }

    /// The service account FCM requests of `app` are authorised by, and the project they send for.
    func fcmAccount(for app: RegisteredApp) -> Result<(ServiceAccount, projectID: String), CredentialError> {
        guard case .fcmServiceAccount(let json, let projectID) = app.credentials else {
            return .failure(CredentialError(app: app.id, reason: "a \(app.platform.rawValue) app has no service account"))
        }
        return cached(app, in: serviceAccounts) {
            do {
                return .success(try ServiceAccount(json: json))
            } catch {
                return .failure(CredentialError(app: app.id, reason: "service account: \(error)"))
            }
        }.map { ($0, projectID) }.mapError { $0.naming(app.id) }
    }

    /// The VAPID key a web app's pushes are signed with, and the contact (`sub`) they name.
    func vapidKey(for app: RegisteredApp) -> Result<(key: VAPIDKey, subject: String), CredentialError> {
        guard case .webPush(let pem, let subject) = app.credentials else {
            return .failure(CredentialError(app: app.id, reason: "a \(app.platform.rawValue) app has no VAPID key"))
        }
        return cached(app, in: vapidKeys) {
            do {
                return .success(try VAPIDKey(pem: pem))
            } catch {
                return .failure(CredentialError(app: app.id, reason: "VAPID key: \(error)"))
            }
        }.map { (key: $0, subject: subject) }.mapError { $0.naming(app.id) }
    }

    private func cached<Value>(
        _ app: RegisteredApp, in cache: Parsed<Value>, parse: () -> Result<Value, CredentialError>
    ) -> Result<Value, CredentialError> {
        if let hit = cache.withLock({ $0[app.id] }), hit.credentials == app.credentials { return hit.value }
        // Parsed outside the lock: two threads may both parse a new key once, harmlessly.
        let parsed = parse()
        cache.withLock {
            if $0.count >= capacity { $0.removeAll() }
            $0[app.id] = (app.credentials, parsed)
        }
        return parsed
    }
}

/// How one APNs app proves itself: a provider JWT per request, or a client certificate per
/// connection.
enum APNsAuthentication {
    case token(ProviderKey)
    case certificate(ClientIdentity)
}

/// An app whose registered credentials cannot be used, and why (never the secret itself).
struct CredentialError: Error, Equatable, CustomStringConvertible {
    var app: AppID
    var reason: String

    var description: String { "credentials of app \(app) unusable: \(reason)" }

    /// The cache is shared by apps registered with the same key: name the app that asked.
    func naming(_ app: AppID) -> CredentialError {
        CredentialError(app: app, reason: reason)
    }
}
