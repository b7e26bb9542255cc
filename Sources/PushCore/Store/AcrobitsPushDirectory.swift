/// A stored device a pnm2 push can go to: its id (so a dead token prunes it) and its token.
public struct AddressedDevice: Sendable, Equatable {
    public var id: Int64
    public var appID: AppID
    public var token: DeviceToken
    /// Nil when the device follows its app's default environment.
    public var sandbox: Bool?

    public init(id: Int64, appID: AppID, token: DeviceToken, sandbox: Bool?) {
        self.id = id
        self.appID = appID
        self.token = token
        self.sandbox = sandbox
    }
}

/// The lookups the Acrobits HTTP push gateway (pnm2) makes before pushing: read-only, so a
/// send never writes unless a dead token is pruned.
public protocol AcrobitsPushDirectory: Sendable {
    /// The stored device of each (app, token), nil where the store does not know it, in the
    /// order asked; one read for the whole list, as a multisend asks for a thousand at once.
    func storedDevices(_ keys: [(appID: AppID, token: DeviceToken)]) throws -> [AddressedDevice?]
    /// The device each channel of account `selector` pushes to (empty for an unknown account).
    func accountDevices(selector: String) throws -> [AcrobitsChannel: AddressedDevice]
}
