/// The credentials of an `Authorization` header, in the two schemes pushgate accepts.
public enum HTTPAuthorization: Sendable, Equatable {
    case bearer(String)
    case basic(user: String, password: String)

    /// Nil for a missing header, another scheme, or a malformed value. Scheme names are
    /// case-insensitive (RFC 9110); Basic's user-pass is base64 of UTF-8 `user:password`,
    /// split at the first colon (RFC 7617: a user id cannot contain one, a password can).
    public init?(header: String?) {
        guard let header else { return nil }
        let value = header.trimmingASCIIWhitespace()
        guard let space = value.firstIndex(where: { $0 == " " || $0 == "\t" }) else { return nil }
        let scheme = value[..<space].lowercased()
        let credentials = value[space...].trimmingASCIIWhitespace()
        guard !credentials.isEmpty, !credentials.contains(" ") else { return nil }
        switch scheme {
        case "bearer":
            self = .bearer(credentials)
        case "basic":
            guard let bytes = Base64.decode(credentials),
                let colon = bytes.firstIndex(of: UInt8(ascii: ":")),
                let user = String(validating: bytes[..<colon], as: UTF8.self),
                let password = String(validating: bytes[(colon + 1)...], as: UTF8.self)
            else { return nil }
            self = .basic(user: user, password: password)
        default:
            return nil
        }
    }
}

extension Request {
    /// The parsed `Authorization` header, nil when absent or unusable.
    public var authorization: HTTPAuthorization? { HTTPAuthorization(header: header("authorization")) }

    /// True when the client connected from this machine (nginx passes the peer as REMOTE_ADDR).
    /// Read by `inet_pton` (`IPAddress`): a keyless sender's check asks this on every send, and
    /// splitting the address into strings was most of that check's cost.
    public var isFromLoopback: Bool {
        guard let address = IPAddress(remoteAddress) else { return false }
        let bytes = address.bytes
        if bytes.count == 4 { return bytes[0] == 127 }
        // 127.0.0.0/8 as a dual-stack listener shows it (::ffff:127.x.y.z), or ::1.
        if address.isIPv4Mapped { return bytes[12] == 127 }
        return bytes.prefix(15).allSatisfy { $0 == 0 } && bytes[15] == 1
    }
}
