import Logging
import PushCore

/// The Acrobits Push Token Reporter: a softphone reports its account's push tokens (one for
/// incoming calls, one for everything else) by GET query, POST form or POST JSON, or in the
/// `/pushToken/<username>/<selector>/<token>&appid=<appid>` path style.
public struct TokenReporter: DialectHandler {
    private let apps: any AppCatalog
    private let accounts: any AcrobitsAccountStore
    private let subscriptions: WebPushSubscriptionCheck
    private let gate: NewDeviceGate
    private let stored: StoredReports

    /// Where the two URL styles of the document are served.
    public static let queryStylePrefix = "/token"
    public static let pathStylePrefix = "/pushToken"

    /// - Parameters:
    ///   - gate: the new devices each client address may create and each app may have
    ///     (shared by every dialect).
    ///   - stored: the reports this process stored lately (see `StoredReports`).
    ///   - subscriptions: what a web app's token, a browser's push subscription, must be to be
    ///     stored (its endpoint on the allow-list, its keys usable).
    public init(
        apps: any AppCatalog, accounts: any AcrobitsAccountStore, gate: NewDeviceGate = .open,
        stored: StoredReports = StoredReports(), subscriptions: WebPushSubscriptionCheck
    ) {
        self.apps = apps
        self.accounts = accounts
        self.gate = gate
        self.stored = stored
        self.subscriptions = subscriptions
    }

    public var routes: [Router.Route] {
        ReporterPath.routes(prefix: Self.queryStylePrefix, tokenStyle: Self.pathStylePrefix, self)
    }

    /// The parameter names of each channel, current names first, then the legacy ones.
    struct ChannelNames {
        let channel: AcrobitsChannel
        let tokenNames: [String]
        let appIDNames: [String]
    }

    static let channels = [
        ChannelNames(
            channel: .calls, tokenNames: ["token_calls", "pushTokenIncomingCall"],
            appIDNames: ["appid_calls", "appId_calls", "pushappid_incoming_call"]),
        ChannelNames(
            channel: .msgs, tokenNames: ["token_msgs", "pushTokenOther", "pushToken"],
            appIDNames: ["appid_msgs", "appId_msgs", "pushappid_other", "pushappid", "appid"]),
    ]

    /// A report is an account's few fields and two tokens, well under 1 KiB; a body past this
    /// is not one, and is refused before it is read.
    static let bodyLimit = 16 * 1024

    /// Acrobits' selectors are 49 characters (a SHA-1 in hex, `:`, 8 hex digits). A short one
    /// is guessable, and anyone could overwrite the tokens stored under it: refused.
    static let minimumSelectorLength = 16

    public func respond(to request: Request, context: RequestContext) throws -> Response {
        let report = try parse(request, context.parameters)
        // No token (an iOS app before it has one) creates nothing: the store's to answer.
        // Without a quota or a ceiling nothing need be told apart either.
        guard !report.tokens.isEmpty, !gate.isOpen else {
            try save(report)
            return .emptyOK
        }
        // The common request: the tokens this process stored for the account last time. It
        // creates nothing, so it goes straight to the store, as before the quota.
        let digest = StoredReports.digest(selector: report.selector, tokens: report.tokens)
        if stored.contains(digest) {
            try save(report)
            return .emptyOK
        }
        // Not seen here: a new account or token, or an account's first report since `serve`
        // started. Only what the store does not hold yet counts against the quota: the store
        // asks the gate before it writes a report that may create a device, from the same
        // read of the account that tells it whether the report changes anything.
        var ticket: NewDeviceGate.Ticket?
        do {
            try accounts.saveAccountTokens(
                selector: report.selector, username: report.username, tokens: report.tokens,
                admittingNewDevices: {
                    do {
                        ticket = try gate.admit(
                            address: request.remoteAddress, apps: report.tokens.map(\.appID), alreadyStored: { false })
                    } catch let refusal as NewDeviceGate.Refusal {
                        throw ReporterError.newDeviceRefused(refusal)
                    }
                })
        } catch {
            if let ticket { gate.nothingCreated(ticket) }
            throw error
        }
        if let ticket { gate.created(ticket) }
        stored.insert(digest)
        return .emptyOK
    }

    private func save(_ report: Report) throws {
        try accounts.saveAccountTokens(selector: report.selector, username: report.username, tokens: report.tokens)
    }

    struct Report: Equatable {
        var selector: String
        var username: String?
        var tokens: [ChannelToken]
    }

    func parse(_ request: Request, _ pathParameters: RouteParameters) throws -> Report {
        try ReporterPath.checkSize(request)
        let parameters = try ReporterParameters(request: request, path: pathParameters)
        let account = try AccountFields(parameters)
        // Counted in bytes: AccountFields lets through printable ASCII only.
        guard account.selector.utf8.count >= Self.minimumSelectorLength else {
            throw ReporterError.invalidValue(
                field: "selector", reason: "is shorter than \(Self.minimumSelectorLength) characters")
        }
        var tokens: [ChannelToken] = []
        for names in Self.channels {
            if let token = try channelToken(names, in: parameters) {
                tokens.append(token)
            }
        }
        return Report(selector: account.selector, username: account.username, tokens: tokens)
    }

    private func channelToken(_ names: ChannelNames, in parameters: ReporterParameters) throws -> ChannelToken? {
        guard let (tokenField, tokenText) = parameters.value(names.tokenNames) else {
            // An app id without its token is the iOS "token not known yet" case: nothing to store.
            return nil
        }
        guard let (appIDField, appIDText) = parameters.value(names.appIDNames) else {
            throw ReporterError.tokenWithoutAppID(token: tokenField, appID: names.appIDNames[0])
        }
        guard let appID = AppID(appIDText) else {
            throw ReporterError.invalidValue(
                field: appIDField, reason: "is not an application id (letters, digits, '.', '_', '-'; at most 200)")
        }
        let platform = try apps.platform(of: appID)
        let text = tokenText.trimmingASCIIWhitespace()
        if platform == .web {
            let token = try webToken(text, field: tokenField, appID: appID)
            return ChannelToken(channel: names.channel, appID: appID, token: token, reportedToken: tokenText)
        }
        guard let token = ReportedToken.token(text, platform: platform) else {
            throw ReporterError.invalidValue(
                field: tokenField,
                reason: ReportedToken.refusal(for: platform) + (platform == nil ? "" : " for \(appID)"))
        }
        return ChannelToken(channel: names.channel, appID: appID, token: token, reportedToken: tokenText)
    }

    /// A browser softphone reports the base64 of its push subscription's JSON; the
    /// subscription is stored only when pushgate may send to its endpoint and its keys can be
    /// encrypted to, so that nothing an unlisted or internal endpoint names is ever kept.
    private func webToken(_ text: String, field: String, appID: AppID) throws(ReporterError) -> DeviceToken {
        switch subscriptions.subscription(fromBase64: text) {
        case .success(let subscription):
            return subscription.token
        case .failure(.notASubscription):
            throw .invalidValue(field: field, reason: ReportedToken.refusal(for: .web) + " for \(appID)")
        case .failure(.refused(let reason)):
            throw .invalidValue(field: field, reason: "is refused for \(appID): \(reason)")
        }
    }
}
