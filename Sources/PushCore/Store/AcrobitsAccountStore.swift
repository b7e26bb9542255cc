/// Which of an Acrobits account's two tokens a report or a push is about (iOS 13+ has two).
public enum AcrobitsChannel: String, Sendable, Codable, CaseIterable {
    /// Incoming calls (PushKit on iOS).
    case calls
    /// Everything else: messages, reprovisioning.
    case msgs
}

/// One token an Acrobits app reported for one channel of an account.
public struct ChannelToken: Sendable, Equatable {
    public var channel: AcrobitsChannel
    public var appID: AppID
    public var token: DeviceToken
    /// The token exactly as the client sent it, kept for operators.
    public var reportedToken: String

    public init(channel: AcrobitsChannel, appID: AppID, token: DeviceToken, reportedToken: String) {
        self.channel = channel
        self.appID = appID
        self.token = token
        self.reportedToken = reportedToken
    }
}

/// Acrobits accounts (selector + channel) and the device each one's pushes go to.
public protocol AcrobitsAccountStore: Sendable {
    /// In one transaction: links each channel of `selector` to its device (creating the device
    /// for (app, token) when new), replacing the channel's previous token. Devices no owner
    /// links to any more are deleted. A nil `username` keeps the one known before.
    func saveAccountTokens(selector: String, username: String?, tokens: [ChannelToken]) throws
    /// `saveAccountTokens(selector:username:tokens:)`, first calling `admittingNewDevices` when
    /// the report may create a device (a channel of it is new, or links to another device
    /// now); when that throws, nothing is written. One read of the account's links answers
    /// both this and whether the report changes anything at all.
    func saveAccountTokens(
        selector: String, username: String?, tokens: [ChannelToken], admittingNewDevices: () throws -> Void
    ) throws
    /// Forgets every token of `selector`; returns how many channel links were removed.
    func removeAccount(selector: String) throws -> Int
}
