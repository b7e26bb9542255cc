/// The apps operators registered.
public protocol AppCatalog: Sendable {
    func app(id: AppID) throws -> RegisteredApp?
    /// The platform of a registered app, without loading its credentials.
    func platform(of id: AppID) throws -> Platform?
    func apps() throws -> [RegisteredApp]
    /// Registers `app`; with `replacing` an existing app of that id is updated, otherwise it is
    /// an error (`AppCatalogError.duplicateApp`). Devices already reported for this id take the
    /// app's platform. The app's Beams `appKey` puts it behind that Beams instance, beside at
    /// most one app of the other platform: a key already held by another app of the same
    /// platform is `AppCatalogError.appKeyTaken`, and nothing is written.
    func addApp(_ app: RegisteredApp, replacing: Bool) throws
    /// Removes the app; its devices stay (they are valid again if the app is added back).
    func removeApp(id: AppID) throws -> Bool
}

/// Refusals of the app catalog that an operator must hear about.
public enum AppCatalogError: Error, Equatable, CustomStringConvertible {
    case duplicateApp(AppID)
    /// The Beams app key already serves an app of this platform (`holder`): a Beams instance
    /// has one APNs app and one FCM app at most.
    case appKeyTaken(appKey: String, platform: Platform, holder: AppID)

    public var description: String {
        switch self {
        case .duplicateApp(let id): return "an app with id \(id) is already registered (use --replace to update it)"
        case .appKeyTaken(let appKey, let platform, let holder):
            return "app key \(appKey) already has an \(platform.rawValue) app, \(holder): a Beams key serves "
                + "one APNs app and one FCM app at most (give this app another key, or first take the key "
                + "off \(holder) with apps add --replace)"
        }
    }
}
