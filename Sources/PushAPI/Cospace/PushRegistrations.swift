import Logging
import PushCore

/// cospace `GET /api/push` and `POST /api/push`: an authenticated user lists, adds and
/// deletes its own APNs device tokens and GCM (FCM) registration ids.
public struct PushRegistrations: DialectHandler {
    public static let path = "/api/push"
    /// A real body is under 500 bytes; this leaves room for whitespace and nothing more.
    static let bodyLimit = 16 * 1024

    private let users: any CospaceUserStore
    private let authenticator: CospaceAuthenticator
    private let senderID: String?
    private let fcmApp: AppID?

    /// - Parameters:
    ///   - senderID: `PUSHGATE_FCM_SENDER_ID`, shown as `gcm.sender_id` (null when unset).
    ///   - fcmApp: `PUSHGATE_COSPACE_FCM_APP`, the app registration ids are stored under;
    ///     GCM requests answer 500 `gcm-not-configured` without it.
    public init(users: any CospaceUserStore, authenticator: CospaceAuthenticator, senderID: String?, fcmApp: AppID?) {
        self.users = users
        self.authenticator = authenticator
        self.senderID = senderID
        self.fcmApp = fcmApp
    }

    /// `/api/push` itself, and the rest of `/api/push/…` but for the events' own route: no such
    /// endpoint, in cospace's shape. A login that will run the password hash waits for the
    /// password lane, whose few threads bound the CPU that logins take; one that is refused
    /// anyway (no credentials, throttled) is answered at once.
    public var routes: [Router.Route] {
        [
            .init(Self.path + "/?", self, methods: ["GET", "POST"], lane: { [authenticator] in
                authenticator.wouldCheckPassword($0) ? .passwords : nil
            }),
            .init(
                Self.path + "/{path...}",
                UnknownPath { _ in throw CospaceError.notFound(status: "not-found") }),
        ]
    }

    public func respond(to request: Request, context: RequestContext) throws -> Response {
        let user = try authenticator.authenticate(request)
        if request.method == "POST" {
            try apply(PushChange(CospaceJSON.object(request, limit: Self.bodyLimit)), for: user)
            return .json(200, Array("{}".utf8))
        }
        return .json(200, try listing(for: user).encoded())
    }

    private func apply(_ change: PushChange, for user: CospaceUser) throws {
        switch change {
        case .addAPNsToken(let registration):
            guard try users.addAPNsToken(userID: user.id, registration) else {
                throw CospaceError.invalid("unknown-appid")
            }
        case .deleteAPNsToken(let token):
            try users.removeAPNsToken(userID: user.id, token: token)
        case .addRegistrationID(let id):
            try users.addRegistrationID(userID: user.id, appID: try configuredFCMApp(), registrationID: id)
        case .deleteRegistrationID(let id):
            try users.removeRegistrationID(userID: user.id, appID: try configuredFCMApp(), registrationID: id)
        }
    }

    private func configuredFCMApp() throws(CospaceError) -> AppID {
        guard let fcmApp else {
            throw .notConfigured(
                status: "gcm-not-configured",
                detail: "PUSHGATE_COSPACE_FCM_APP is not set: gcm registration ids refused")
        }
        return fcmApp
    }

    /// The document's `GET /api/push` body.
    private func listing(for user: CospaceUser) throws -> JSONValue {
        let registrations = try users.registrations(userID: user.id)
        var tokens: [String: JSONValue] = [:]
        for token in registrations.apnsTokens {
            var entry: [String: JSONValue] = [
                "application_id": .string(token.applicationID), "sandbox": .bool(token.sandbox),
            ]
            if let topic = token.apnsTopic { entry["apns_topic"] = .string(topic) }
            tokens[token.token.hex] = .object(entry)
        }
        return .object([
            "gcm": .object([
                "sender_id": senderID.map(JSONValue.string) ?? .null,
                "registration_ids": .array(registrations.registrationIDs.map(JSONValue.string)),
            ]),
            "apns": .object(["device_tokens": .object(tokens)]),
        ])
    }
}
