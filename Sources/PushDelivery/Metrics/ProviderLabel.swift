import PushCore

/// The `provider` label of a push: its app's platform, from the app the push carries or else
/// the catalog's short-lived cache of app platforms (no query per push); `unknown` for an app
/// not registered.
struct ProviderLabel: Sendable {
    let catalog: any AppCatalog

    func of(_ notification: Notification) -> String {
        if let app = notification.app { return app.platform.rawValue }
        return ((try? catalog.platform(of: notification.appID)) ?? nil)?.rawValue ?? "unknown"
    }
}
