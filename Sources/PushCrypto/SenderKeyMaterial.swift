/// Sender keys: 256 random bits, shown once, stored as a SHA-256 digest. A fast digest is
/// right here (unlike for passwords): the key has all the entropy a brute force would need
/// to cover, and it is checked on every send.
public enum SenderKeyMaterial {
    /// A new key: `pgk_` then 43 base64url characters. The prefix lets secret scanners and
    /// operators recognise a pushgate key in a leaked file.
    public static func generate() throws(CryptoError) -> String {
        "pgk_" + Base64URL.encode(try SecureRandom.bytes(32))
    }

    /// What the store keeps and looks a presented key up by.
    public static func digest(of key: String) -> String {
        SHA256.hexDigest(of: key)
    }
}
