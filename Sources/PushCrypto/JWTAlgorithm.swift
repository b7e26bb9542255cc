/// The JWS algorithms pushgate signs with: ES256 for APNs provider tokens, RS256 for Google
/// OAuth assertions (RFC 7518 §3.1).
public enum JWTAlgorithm: String, Sendable, Equatable, CaseIterable {
    case es256 = "ES256"
    case rs256 = "RS256"
}
