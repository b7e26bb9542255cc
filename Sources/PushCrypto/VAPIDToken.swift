import PushCore

/// VAPID (RFC 8292): the ES256 JWT an application server signs for one push service origin,
/// and the `Authorization: vapid t=…, k=…` value that carries it with the public key.
public enum VAPIDToken {
    /// The longest lifetime push services accept (RFC 8292 §2: 24 hours; Apple refuses more).
    public static let maximumLifetime = 24 * 60 * 60

    /// `audience` is the endpoint's origin (`https://host[:port]`), `expiresAt` seconds since
    /// 1970, `subject` a `mailto:` or `https:` contact.
    public static func sign(audience: String, subject: String, expiresAt: Int, key: VAPIDKey) throws(CryptoError)
        -> String
    {
        try JWT.sign(
            header: ["typ": .string("JWT")],
            claims: ["aud": .string(audience), "exp": .number(Double(expiresAt)), "sub": .string(subject)],
            using: key)
    }

    /// The `Authorization` header value (RFC 8292 §3).
    public static func authorization(token: String, key: VAPIDKey) throws(CryptoError) -> String {
        "vapid t=\(token), k=\(try key.publicKeyBase64URL())"
    }
}
