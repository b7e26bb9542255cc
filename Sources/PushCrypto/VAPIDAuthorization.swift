/// An `Authorization: vapid t=…, k=…` header read back (RFC 8292 §3), as a push service reads
/// it: the token, and the public key it must verify against.
public struct VAPIDAuthorization: Sendable, Equatable {
    public let token: String
    /// `k`, decoded: the 65-byte uncompressed public key.
    public let publicKey: [UInt8]

    /// nil unless the scheme is `vapid` and both `t` and `k` are present, `k` base64url.
    public init?(header: String) {
        let trimmed = header.drop { $0 == " " }
        guard trimmed.lowercased().hasPrefix("vapid ") else { return nil }
        var token: String?
        var key: [UInt8]?
        for parameter in trimmed.dropFirst("vapid ".count).split(separator: ",") {
            let pair = trimmingSpaces(parameter)
            guard let equals = pair.firstIndex(of: "=") else { return nil }
            let value = String(pair[pair.index(after: equals)...])
            switch pair[..<equals].lowercased() {
            case "t": token = value
            case "k": key = Base64URL.decode(value)
            default: continue
            }
        }
        guard let token, let key else { return nil }
        self.token = token
        publicKey = key
    }

    /// The token's claims when its ES256 signature verifies against `k`; nil otherwise.
    public func verifiedClaims() -> DecodedJWT? {
        guard let key = try? JWTPublicKey(uncompressedP256Point: publicKey), JWT.verify(token, with: key) else {
            return nil
        }
        return try? JWT.decode(token)
    }
}

private func trimmingSpaces(_ text: Substring) -> Substring {
    var text = text.drop { $0 == " " }
    while text.last == " " { text.removeLast() }
    return text
}

extension JWTPublicKey {
    /// An ES256 verifier from a raw uncompressed P-256 point, VAPID's `k`.
    public init(uncompressedP256Point point: [UInt8]) throws(CryptoError) {
        key = try P256Key.publicKey(uncompressedPoint: point)
        algorithm = .es256
    }
}
