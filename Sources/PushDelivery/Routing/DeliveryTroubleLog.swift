import Logging
import PushCore

/// Watches every push's result for trouble an operator must hear about, once per episode
/// (`TroubleEpisode`): an upstream unreachable or answering 5xx/429 (per provider), and
/// credentials refused (per app: `InvalidProviderToken`, a refused certificate, a refused
/// OAuth service account). Dead tokens and refused payloads are the pushes' own business.
final class DeliveryTroubleLog: Sendable {
    private let upstream: TroubleEpisode
    private let credentials: TroubleEpisode

    init(logger: Logger) {
        upstream = TroubleEpisode("upstream unreachable or failing", logger: logger)
        credentials = TroubleEpisode("credentials refused", logger: logger)
    }

    func observe(_ result: DeliveryResult, app: RegisteredApp) {
        let provider = app.platform.providerName
        let metadata: Logger.Metadata = ["app": "\(app.id)", "provider": "\(provider)"]
        switch result {
        case .retryLater(let reason, _):
            upstream.failed(provider, reason: "\(reason) (app \(app.id))", metadata: metadata)
        case .rejected(let status, let reason) where status == 401 || status == 403 || Self.isCredentialFailure(reason):
            // APNs 403 (InvalidProviderToken after a renewal, BadCertificate…), FCM 401 after
            // a token refresh, or an OAuth refusal: the upstream answered, the app's
            // credentials are at fault.
            upstream.succeeded(provider)
            credentials.failed("\(provider) app \(app.id)", reason: reason, metadata: metadata)
        case .delivered:
            upstream.succeeded(provider, metadata: metadata)
            credentials.succeeded("\(provider) app \(app.id)", metadata: metadata)
        case .deadToken, .rejected:
            // Answered, so reachable; says nothing about the credentials of the app.
            upstream.succeeded(provider, metadata: metadata)
        }
    }

    /// An OAuth token endpoint's refusal (its status is the endpoint's: `AccessTokenError`),
    /// or credentials that cannot be used at all (`CredentialError`, status 500).
    private static func isCredentialFailure(_ reason: String) -> Bool {
        reason.hasPrefix("OAuth token endpoint refused") || reason.hasPrefix("signing the OAuth assertion")
            || reason.hasPrefix("credentials of app")
    }
}
