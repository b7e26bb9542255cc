import Foundation
import PushCore
import Synchronization

/// `POST /v1/projects/<project>/messages:send`: checks the bearer access token and its project
/// and scope, then the message (exactly one target, string-only `data`), then what the script
/// says about the registration token.
/// (firebase.google.com/docs/reference/fcm/rest/v1/projects.messages/send, and
/// firebase.google.com/docs/cloud-messaging/error-codes for the error shapes.)
final class FCMSendEndpoint: Sendable {
    static let pathPrefix = "/v1/projects/"
    static let pathSuffix = "/messages:send"
    /// Scopes under which Google lets a token send (firebase.messaging, or the all-of-GCP one).
    static let sendingScopes: Set<String> = [
        "https://www.googleapis.com/auth/firebase.messaging", "https://www.googleapis.com/auth/cloud-platform",
    ]

    let tokens: AccessTokenStore
    private let outcomes = Mutex<[String: FCMTokenOutcome]>([:])
    private let messageCounter = Mutex(0)

    init(tokens: AccessTokenStore) {
        self.tokens = tokens
    }

    /// The project of a send path, or nil when `path` is not one.
    static func project(inPath path: String) -> String? {
        guard path.hasPrefix(pathPrefix), path.hasSuffix(pathSuffix) else { return nil }
        let project = path.dropFirst(pathPrefix.count).dropLast(pathSuffix.count)
        return project.isEmpty || project.contains("/") ? nil : String(project)
    }

    /// The `message.token` of a body, for recording and token-scoped faults, without judging it.
    static func deviceToken(in body: [UInt8]) -> String? {
        (try? JSONValue.parse(body))?.objectValue?["message"]?.objectValue?["token"]?.stringValue
    }

    func setOutcome(_ outcome: FCMTokenOutcome?, forToken token: String) {
        outcomes.withLock { $0[token] = outcome }
    }

    func clearOutcomes() {
        outcomes.withLock { $0.removeAll() }
    }

    func answer(_ request: MockHTTPRequest, project: String, now: Date) -> EndpointAnswer {
        var answer = EndpointAnswer(response: MockHTTPResponse(status: 200))
        guard request.method == "POST" else {
            return error(answer, 404, "NOT_FOUND", "The requested URL was not found on this server.")
        }

        // Authentication: a bearer token this mock issued, unexpired, for this project.
        guard let authorization = request.headers["authorization"],
            let accessToken = APNsResponder.bearerToken(authorization)
        else {
            return unauthenticated(answer, Self.missingCredentials)
        }
        let grant: AccessTokenStore.Grant
        switch tokens.lookup(accessToken, now: now) {
        case .valid(let valid):
            grant = valid
        case .expired:
            answer.auth = .refused(detail: "access token expired")
            return unauthenticated(answer, Self.invalidCredentials)
        case .unknown:
            answer.auth = .refused(detail: "unknown access token")
            return unauthenticated(answer, Self.invalidCredentials)
        }
        answer.auth = .accessToken(clientEmail: grant.account.clientEmail)
        guard grant.account.projectID == project else {
            return error(
                answer, 403, "PERMISSION_DENIED",
                "Permission 'cloudmessaging.messages.create' denied on resource "
                    + "'//cloudresourcemanager.googleapis.com/projects/\(project)' (or it may not exist).")
        }
        guard !grant.scopes.isDisjoint(with: Self.sendingScopes) else {
            return error(answer, 403, "PERMISSION_DENIED", "Request had insufficient authentication scopes.")
        }

        // The message.
        guard let document = (try? JSONValue.parse(request.body))?.objectValue,
            let message = document["message"]?.objectValue
        else {
            return invalidArgument(
                answer, "Invalid JSON payload received. Expected an object with a \"message\" object.", field: "message"
            )
        }
        if let validateOnly = document["validate_only"], validateOnly.boolValue == nil {
            return invalidArgument(answer, "Invalid value at 'validate_only' (TYPE_BOOL)", field: "validate_only")
        }
        let targets = ["token", "topic", "condition"].filter { message[$0] != nil }
        if targets.isEmpty {
            return invalidArgument(answer, "Recipient of the message is not set.", field: "message")
        }
        if targets.count > 1 {
            return invalidArgument(
                answer,
                "Invalid value at 'message' (oneof), oneof field 'target' is already set. Cannot set '\(targets[1])'",
                field: "message")
        }
        if let token = message["token"] {
            guard let text = token.stringValue, !text.isEmpty else {
                return invalidArgument(
                    answer, "The registration token is not a valid FCM registration token", field: "message.token")
            }
            answer.deviceToken = text
        }
        if let data = message["data"] {
            guard let entries = data.objectValue else {
                return invalidArgument(
                    answer, "Invalid value at 'message.data' (type.googleapis.com/google.protobuf.Struct)",
                    field: "message.data")
            }
            // Google names the offending map entry by index; sorted keys make it reproducible.
            for (index, key) in entries.keys.sorted().enumerated() where entries[key]?.stringValue == nil {
                let value = String(decoding: entries[key]!.encoded(), as: UTF8.self)
                return invalidArgument(
                    answer, "Invalid value at 'message.data[\(index)].value' (TYPE_STRING), \(value)",
                    field: "message.data[\(index)].value")
            }
        }
        if let android = message["android"], let problem = Self.androidProblem(android) {
            return invalidArgument(answer, problem.message, field: problem.field)
        }

        if let token = answer.deviceToken, let outcome = outcomes.withLock({ $0[token] }) {
            return answer.failing(
                outcome.errorCode.httpStatus, GoogleErrorBody.apiError(outcome.errorCode),
                reason: outcome.errorCode.rawValue,
                extraHeaders: outcome.retryAfter.map { [(name: "retry-after", value: String($0))] } ?? [])
        }

        // A dry run answers a fixed name (Google: "projects/<p>/messages/fake_message_id").
        let id = document["validate_only"]?.boolValue == true ? "fake_message_id" : nextMessageID(now: now)
        answer.response = EndpointAnswer.json(
            200, JSONValue.object(["name": .string("projects/\(project)/messages/\(id)")]).encoded())
        return answer
    }

    /// The first field of `message.android` that Google's parser refuses: `ttl` is a protobuf
    /// Duration in JSON ("3600s", "0.5s"), `priority` the AndroidMessagePriority enum,
    /// `collapse_key` a string. The messages follow Google's "Invalid value at …" form.
    static func androidProblem(_ android: JSONValue) -> (field: String, message: String)? {
        guard let config = android.objectValue else {
            return (
                "message.android",
                "Invalid value at 'message.android' (type.googleapis.com/google.firebase.fcm.v1.AndroidConfig)"
            )
        }
        func refused(_ name: String, _ type: String) -> (field: String, message: String) {
            let value = String(decoding: config[name]!.encoded(), as: UTF8.self)
            return ("message.android.\(name)", "Invalid value at 'message.android.\(name)' (\(type)), \(value)")
        }
        if let ttl = config["ttl"], !(ttl.stringValue.map(isDuration) ?? false) {
            return refused("ttl", "type.googleapis.com/google.protobuf.Duration")
        }
        // Google's own examples write the enum in lower case, and it takes that too.
        if let priority = config["priority"], !["NORMAL", "HIGH"].contains(priority.stringValue?.uppercased() ?? "") {
            return refused("priority", "type.googleapis.com/google.firebase.fcm.v1.AndroidMessagePriority")
        }
        if let collapseKey = config["collapse_key"], collapseKey.stringValue == nil {
            return refused("collapse_key", "TYPE_STRING")
        }
        return nil
    }

    /// Seconds with up to nine decimals and an `s`, not negative (FCM takes no negative TTL).
    static func isDuration(_ text: String) -> Bool {
        guard text.hasSuffix("s") else { return false }
        let number = text.dropLast().split(separator: ".", omittingEmptySubsequences: false)
        guard (1...2).contains(number.count), !number[0].isEmpty, number[0].utf8.count <= 12 else { return false }
        let digits = { (part: Substring) in part.utf8.allSatisfy { (48...57).contains($0) } }
        guard digits(number[0]) else { return false }
        return number.count == 1 || ((1...9).contains(number[1].utf8.count) && digits(number[1]))
    }

    /// Google's 401 messages, without and with a bad credential.
    static let missingCredentials = "Request is missing required authentication credential. " + credentialsAdvice
    static let invalidCredentials = "Request had invalid authentication credentials. " + credentialsAdvice
    private static let credentialsAdvice =
        "Expected OAuth 2 access token, login cookie or other valid authentication credential. "
        + "See https://developers.google.com/identity/sign-in/web/devconsole-project."

    /// Google's 401 also names the problem in `www-authenticate`, which OAuth clients read.
    private func unauthenticated(_ base: EndpointAnswer, _ message: String) -> EndpointAnswer {
        base.failing(
            401, GoogleErrorBody.apiError(status: 401, message: message, canonicalStatus: "UNAUTHENTICATED"),
            reason: "UNAUTHENTICATED",
            extraHeaders: [
                (
                    name: "www-authenticate",
                    value: "Bearer realm=\"https://accounts.google.com/\", error=\"invalid_token\""
                )
            ])
    }

    private func invalidArgument(_ base: EndpointAnswer, _ message: String, field: String) -> EndpointAnswer {
        base.failing(
            400,
            GoogleErrorBody.apiError(
                status: 400, message: message, canonicalStatus: "INVALID_ARGUMENT",
                fcmErrorCode: FCMErrorCode.invalidArgument.rawValue,
                fieldViolation: (field, message)),
            reason: FCMErrorCode.invalidArgument.rawValue)
    }

    private func error(_ base: EndpointAnswer, _ status: Int, _ canonical: String, _ message: String) -> EndpointAnswer
    {
        base.failing(
            status, GoogleErrorBody.apiError(status: status, message: message, canonicalStatus: canonical),
            reason: canonical)
    }

    /// Shaped like FCM's ids (`0:<microseconds>%<hex>`), unique per mock.
    private func nextMessageID(now: Date) -> String {
        let serial = messageCounter.withLock {
            $0 += 1
            return $0
        }
        return "0:\(Int64(now.timeIntervalSince1970 * 1_000_000))%\(String(serial, radix: 16))"
    }
}
