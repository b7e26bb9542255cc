import PushCore

/// The `provider` label of a push: its app's platform, from the catalog's short-lived cache
/// of app platforms (no query per push); `unknown` for an app not registered.
struct ProviderLabel: Sendable {
    let catalog: any AppCatalog

    func of(_ appID: AppID) -> String {
        ((try? catalog.platform(of: appID)) ?? nil)?.rawValue ?? "unknown"
    }
}
