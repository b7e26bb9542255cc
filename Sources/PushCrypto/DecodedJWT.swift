import PushCore

/// A JWT taken apart: what a verifier checks the signature over and the claims it then reads.
public struct DecodedJWT: Sendable, Equatable {
    public let header: [String: JSONValue]
    public let claims: [String: JSONValue]
    /// `header.claims` exactly as they appeared in the token, the bytes the signature covers.
    public let signingInput: [UInt8]
    public let signature: [UInt8]
}
