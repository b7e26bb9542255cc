import Foundation
import PushCore

/// One request a mock received and how it answered, for tests to assert on.
public struct RecordedRequest: Sendable {
    /// 1, 2, 3… in the order the mock judged requests (since start or the last `clear`).
    public let sequence: Int
    public let receivedAt: Date
    /// Which connection carried it (numbered from 1 in accept order).
    public let connectionID: Int
    /// "2" or "1.1".
    public let httpVersion: String
    public let method: String
    public let path: String
    public let headers: MockHeaders
    /// Nil when the mock was configured not to keep bodies.
    public let body: [UInt8]?
    /// The device token addressed: the APNs path token, the FCM `message.token`, the Web Push
    /// subscription id.
    public let deviceToken: String?
    public let auth: RecordedAuth
    public let outcome: RecordedOutcome

    /// The body parsed as JSON, when it was kept and is JSON.
    public var bodyJSON: JSONValue? {
        body.flatMap { try? JSONValue.parse($0) }
    }

    /// The body as text, when it was kept.
    public var bodyText: String? {
        body.map { String(decoding: $0, as: UTF8.self) }
    }
}

/// How a request authenticated, as far as the mock could tell.
public enum RecordedAuth: Sendable, Equatable {
    case none
    /// APNs token-based auth with a verified provider JWT of key `keyID`.
    case providerToken(keyID: String)
    /// APNs certificate-based auth: a client certificate verified against the client CA.
    case certificate
    /// FCM: a bearer access token the mock issued to `clientEmail`.
    case accessToken(clientEmail: String)
    /// FCM token endpoint: a verified JWT-bearer assertion of `clientEmail`.
    case assertion(clientEmail: String)
    /// Web Push: a VAPID JWT that verified against its `k`, from contact `subject`.
    case vapid(subject: String)
    /// Credentials were presented but refused; `detail` says how.
    case refused(detail: String)
}

/// What the mock did with a request.
public enum RecordedOutcome: Sendable, Equatable {
    /// An HTTP answer; `reason` is the APNs reason, the FCM `errorCode`/`status`, or the OAuth
    /// `error`; nil on success.
    case answered(status: Int, reason: String?)
    case connectionReset
    case goAway

    public var status: Int? {
        if case .answered(let status, _) = self { return status }
        return nil
    }

    public var reason: String? {
        if case .answered(_, let reason) = self { return reason }
        return nil
    }
}
