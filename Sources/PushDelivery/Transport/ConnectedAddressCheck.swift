/// A judgement of the IP address a request's connection reached, made after DNS and connect but
/// before a byte of the request is sent: a hostname an attacker controls (a Web Push endpoint is
/// the subscriber's to choose) must not lead pushgate into the operator's private network.
public struct ConnectedAddressCheck: Sendable, Equatable, CustomStringConvertible {
    /// Names the rule; two checks with the same name are the same rule (requests compare equal).
    public let name: String
    /// nil: send; else why not, a sentence for the operator.
    public let refusal: @Sendable (_ address: String) -> String?

    public init(name: String, refusal: @escaping @Sendable (_ address: String) -> String?) {
        self.name = name
        self.refusal = refusal
    }

    public static func == (left: ConnectedAddressCheck, right: ConnectedAddressCheck) -> Bool {
        left.name == right.name
    }

    public var description: String { "ConnectedAddressCheck(\(name))" }
}
