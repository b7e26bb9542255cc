import CLibPQ

/// A libpq connection string (a `postgresql://` URI or `key=value` pairs) as libpq itself
/// reads it, so that what is shown and checked is what libpq will use. A pattern would miss
/// spellings libpq accepts: `password = 'a b'`, a percent-encoded `%70assword` in a URI's
/// query, `user:password@` with several hosts.
public struct PostgreSQLConnectionString: Sendable {
    public struct Option: Sendable, Equatable {
        public let keyword: String
        public let value: String
        /// libpq marks the options it never shows (the password) as secret.
        public let isSecret: Bool
    }

    /// The options the string sets, in libpq's order; nil when libpq cannot parse it.
    public let options: [Option]?

    public init(_ text: String) {
        var message: UnsafeMutablePointer<CChar>?
        guard let parsed = PQconninfoParse(text, &message) else {
            // libpq's message may quote a piece of the string, which may be the password.
            if let message { PQfreemem(message) }
            options = nil
            return
        }
        defer { PQconninfoFree(parsed) }
        var found: [Option] = []
        var option = parsed
        while let keyword = option.pointee.keyword {
            if let value = option.pointee.val {
                let display = option.pointee.dispchar.map { String(cString: $0) } ?? ""
                found.append(
                    Option(keyword: String(cString: keyword), value: String(cString: value), isSecret: display == "*"))
            }
            option += 1
        }
        options = found
    }

    /// The string as `key=value` pairs, every secret as `***`: safe for logs and `config`.
    /// One libpq cannot parse is not shown at all, since where its password is is unknown.
    public var redacted: String {
        guard let options else { return "(a connection string libpq cannot parse; not shown)" }
        return options.map { option in
            "\(option.keyword)=\(option.isSecret ? "***" : Self.quoted(option.value))"
        }.joined(separator: " ")
    }

    /// The value of `keyword` (`host`, `sslmode`, …), if the string sets it.
    public func value(_ keyword: String) -> String? {
        options?.first { $0.keyword == keyword }?.value
    }

    /// The hosts a connection may go to over the network (`host` and `hostaddr`, each a
    /// comma-separated list), without Unix-socket folders and loopback names: a connection to
    /// these crosses a network, where its password and every token travel in clear unless TLS
    /// with a verified server certificate protects them.
    public var remoteHosts: [String] {
        let listed = ["host", "hostaddr"].compactMap(value).flatMap { $0.split(separator: ",").map(String.init) }
        return listed.filter { host in
            !(host.isEmpty || host.hasPrefix("/") || host.hasPrefix("@") || host == "localhost" || host == "::1"
                || host.hasPrefix("127."))
        }
    }

    /// Whether libpq checks the server's certificate (`sslmode` verify-ca or verify-full).
    public var verifiesServer: Bool {
        ["verify-ca", "verify-full"].contains(value("sslmode") ?? "")
    }

    private static func quoted(_ value: String) -> String {
        guard value.isEmpty || value.contains(where: { $0 == " " || $0 == "'" || $0 == "\\" }) else { return value }
        return "'" + value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'") + "'"
    }
}
