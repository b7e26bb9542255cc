import PushCore

/// The device a channel links to: what a report compares of it, and where a push goes.
struct LinkedDevice: Equatable {
    var appID: String
    var token: [UInt8]
    var reportedToken: String?
    var updatedAt: Int64
    var sandbox: Bool?

    /// Whether the device is (app, token)'s.
    func isDevice(of token: ChannelToken) -> Bool {
        appID == token.appID.rawValue && self.token == token.token.bytes
    }
}
