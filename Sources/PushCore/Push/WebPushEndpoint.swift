/// The URL a browser's push subscription names: where pushes for it are POSTed. It comes from
/// the browser, so from whoever registers the subscription: it is parsed strictly and only
/// `https` is accepted. Nothing here decides whether pushgate may reach it; that is
/// `WebPushEndpointPolicy`'s.
public struct WebPushEndpoint: Hashable, Sendable {
    /// The whole URL as given.
    public let url: String
    /// Lower-cased; an IPv6 literal without its brackets.
    public let host: String
    /// Nil when the URL names none (443).
    public let port: Int?

    /// Longest endpoint accepted: the public push services' are under 400 characters, and with
    /// the keys the canonical token stays within `DeviceToken.maximumLength`.
    public static let maximumLength = 800

    public init?(_ text: String) {
        let bytes = Array(text.utf8)
        guard bytes.count <= Self.maximumLength, bytes.allSatisfy(Self.isURLByte) else { return nil }
        let prefix = "https://"
        guard text.lowercased().hasPrefix(prefix) else { return nil }
        let rest = text.dropFirst(prefix.count)
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        // Credentials in the URL and fragments have no place in a push endpoint.
        guard !authority.isEmpty, !authority.contains("@"), !text.contains("#") else { return nil }
        let hostPart: Substring
        let portPart: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            hostPart = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if after.isEmpty {
                portPart = nil
            } else {
                guard after.hasPrefix(":") else { return nil }
                portPart = after.dropFirst()
            }
            guard !hostPart.isEmpty, hostPart.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }) else {
                return nil
            }
        } else {
            let pieces = authority.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            hostPart = pieces[0]
            portPart = pieces.count > 1 ? pieces[1] : nil
            guard !hostPart.isEmpty, hostPart.utf8.allSatisfy(Self.isHostByte) else { return nil }
        }
        if let portPart {
            guard !portPart.isEmpty, portPart.count <= 5, portPart.allSatisfy(\.isASCII),
                let port = Int(portPart), (1...65535).contains(port)
            else { return nil }
            self.port = port == 443 ? nil : port
        } else {
            self.port = nil
        }
        url = text
        host = hostPart.lowercased()
    }

    /// `https://host[:port]`: the VAPID token's audience and what the allow-list names.
    public var origin: String {
        let shownHost = host.contains(":") ? "[\(host)]" : host
        return port.map { "https://\(shownHost):\($0)" } ?? "https://\(shownHost)"
    }

    /// Printable ASCII other than space and the characters no URL holds unescaped.
    private static func isURLByte(_ byte: UInt8) -> Bool {
        byte > 0x20 && byte < 0x7F && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "<")
            && byte != UInt8(ascii: ">") && byte != UInt8(ascii: "\\") && byte != UInt8(ascii: "`")
            && byte != UInt8(ascii: "{") && byte != UInt8(ascii: "}") && byte != UInt8(ascii: "|")
            && byte != UInt8(ascii: "^")
    }

    private static func isHostByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "-"):
            return true
        default:
            return false
        }
    }
}
