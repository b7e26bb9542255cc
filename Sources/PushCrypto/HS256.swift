import COpenSSL
import PushCore

/// HMAC-SHA256 JWTs (RFC 7518 §3.2), the Pusher Beams tokens a server SDK signs with its
/// secret key. Only verified here: pushgate never issues one.
public enum HS256 {
    /// The claims of `token` when it is a well-formed JWT whose header says HS256 and whose
    /// signature is the HMAC of `secret` (its UTF-8, as the Node and Python SDKs sign);
    /// nil otherwise. The comparison takes the same time wherever the bytes differ.
    public static func verifiedClaims(_ token: String, secret: String) -> [String: JSONValue]? {
        guard let decoded = try? JWT.decode(token), decoded.header["alg"] == .string("HS256"),
            decoded.signature.count == 32
        else { return nil }
        let expected = HMACSHA256.mac(key: Array(secret.utf8), message: decoded.signingInput)
        guard CRYPTO_memcmp(expected, decoded.signature, 32) == 0 else { return nil }
        return decoded.claims
    }
}
