import PushCore

/// JWS compact serialization (RFC 7515 §7.1) of signed JWTs (RFC 7519): signing with any
/// `JWTSigningKey`, reading, and verifying with a `JWTPublicKey`.
public enum JWT {
    /// `base64url(header).base64url(claims).base64url(signature)`. The header's `alg` is always
    /// the key's; the JSON has sorted keys so that equal inputs give equal tokens.
    public static func sign(
        header: [String: JSONValue] = [:], claims: [String: JSONValue], using key: some JWTSigningKey
    ) throws(CryptoError) -> String {
        var header = header
        header["alg"] = .string(key.algorithm.rawValue)
        let signingInput =
            Base64URL.encode(JSONValue.object(header).encoded()) + "."
            + Base64URL.encode(JSONValue.object(claims).encoded())
        let signature = try key.signature(for: Array(signingInput.utf8))
        return signingInput + "." + Base64URL.encode(signature)
    }

    /// Splits and decodes a token without checking its signature.
    public static func decode(_ token: String) throws(CryptoError) -> DecodedJWT {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else {
            throw .malformedToken("expected 3 parts separated by '.', found \(parts.count)")
        }
        let header = try jsonObject(parts[0], part: "header")
        let claims = try jsonObject(parts[1], part: "claims")
        guard let signature = Base64URL.decode(parts[2]) else {
            throw .malformedToken("signature is not base64url")
        }
        return DecodedJWT(
            header: header, claims: claims, signingInput: Array(token[..<parts[1].endIndex].utf8), signature: signature)
    }

    /// True when `token` is well formed, its header names the key's algorithm, and the signature
    /// is valid. Claims (`exp`, `iat`, `iss`) are the caller's to judge via `decode`.
    public static func verify(_ token: String, with key: JWTPublicKey) -> Bool {
        guard let decoded = try? decode(token), decoded.header["alg"] == .string(key.algorithm.rawValue) else {
            return false
        }
        return key.isValidSignature(decoded.signature, for: decoded.signingInput)
    }

    /// As `verify(_:with:)`, loading the public key from PEM first; throws only for a bad key.
    public static func verify(_ token: String, publicKeyPEM: String) throws(CryptoError) -> Bool {
        verify(token, with: try JWTPublicKey(pem: publicKeyPEM))
    }

    private static func jsonObject(_ part: Substring, part name: String) throws(CryptoError) -> [String: JSONValue] {
        guard let bytes = Base64URL.decode(part) else { throw .malformedToken("\(name) is not base64url") }
        guard let object = (try? JSONValue.parse(bytes))?.objectValue else {
            throw .malformedToken("\(name) is not a JSON object")
        }
        return object
    }
}
