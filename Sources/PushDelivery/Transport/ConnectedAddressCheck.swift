/// A judgement of each IP address and port a request's connection is about to be opened to,
/// made after DNS and before the socket exists, so that a refused address receives no packet,
/// not even a SYN; a connection libcurl reuses is judged again before the request is sent. A
/// hostname an attacker controls (a Web Push endpoint is the subscriber's to choose) must not
/// lead pushgate into the operator's private network.
public struct ConnectedAddressCheck: Sendable, Equatable, CustomStringConvertible {
    /// Names the rule; two checks with the same name are the same rule (requests compare equal).
    public let name: String
    /// nil: send; else why not, a sentence for the operator.
    public let refusal: @Sendable (_ address: String, _ port: Int) -> String?

    public init(name: String, refusal: @escaping @Sendable (_ address: String, _ port: Int) -> String?) {
        self.name = name
        self.refusal = refusal
    }

    public static func == (left: ConnectedAddressCheck, right: ConnectedAddressCheck) -> Bool {
        left.name == right.name
    }

    public var description: String { "ConnectedAddressCheck(\(name))" }
}
