/// The `aes128gcm` content coding of Web Push (RFC 8291 on RFC 8188): one record, with the
/// sender's public key as the key id, so that the body alone tells the subscriber how to
/// decrypt it.
public enum WebPushEncryption {
    /// The record size written in the header: one record of a body of at most 4,096 bytes fits.
    public static let recordSize: UInt32 = 4096
    public static let saltLength = 16
    public static let authSecretLength = 16
    /// salt (16) ‖ rs (4) ‖ idlen (1) ‖ keyid (65).
    public static let headerLength = saltLength + 4 + 1 + P256Key.uncompressedPointLength
    /// The padding delimiter of the last (here: only) record (RFC 8188 §2).
    static let lastRecordDelimiter: UInt8 = 0x02

    /// The encrypted body. `senderKeys` and `salt` are fresh per message unless a test passes
    /// the RFC's; reusing either would repeat the AES-GCM key and nonce.
    public static func encrypt(
        _ plaintext: [UInt8], receiverPublicKey: [UInt8], authSecret: [UInt8],
        senderKeys injectedKeys: ECDHKeyPair? = nil, salt injectedSalt: [UInt8]? = nil
    ) throws(CryptoError) -> [UInt8] {
        guard authSecret.count == authSecretLength else {
            throw .invalidPublicKey("the auth secret is \(authSecret.count) bytes, expected \(authSecretLength)")
        }
        // Spelt out: `??` takes an untyped throwing autoclosure, which would lose the CryptoError.
        let senderKeys: ECDHKeyPair
        if let injectedKeys { senderKeys = injectedKeys } else { senderKeys = try ECDHKeyPair.generate() }
        let salt: [UInt8]
        if let injectedSalt { salt = injectedSalt } else { salt = try SecureRandom.bytes(saltLength) }
        precondition(salt.count == saltLength, "a Web Push salt is 16 bytes")
        let schedule = WebPushKeySchedule(
            ecdhSecret: try senderKeys.sharedSecret(with: receiverPublicKey),
            senderPublicKey: senderKeys.publicKey, receiverPublicKey: receiverPublicKey,
            authSecret: authSecret, salt: salt)
        let ciphertext = try AES128GCM.seal(
            plaintext + [lastRecordDelimiter], key: schedule.contentEncryptionKey, nonce: schedule.nonce)
        return header(salt: salt, senderPublicKey: senderKeys.publicKey) + ciphertext
    }

    static func header(salt: [UInt8], senderPublicKey: [UInt8]) -> [UInt8] {
        let size = recordSize
        return salt + [UInt8(size >> 24), UInt8(size >> 16 & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size & 0xFF)]
            + [UInt8(senderPublicKey.count)] + senderPublicKey
    }

    /// The plaintext of `body`, for the subscriber holding `receiverKeys` and `authSecret`: what
    /// a browser does, and what the mock push service does to check what pushgate sent.
    public static func decrypt(_ body: [UInt8], receiverKeys: ECDHKeyPair, authSecret: [UInt8]) throws(CryptoError)
        -> [UInt8]
    {
        guard body.count >= headerLength else {
            throw .undecryptable("the body is \(body.count) bytes, shorter than the 86-byte aes128gcm header")
        }
        let salt = Array(body[0..<saltLength])
        let recordSize = body[16..<20].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        let keyIDLength = Int(body[20])
        guard keyIDLength == P256Key.uncompressedPointLength else {
            throw .undecryptable("the key id is \(keyIDLength) bytes, expected a 65-byte P-256 public key")
        }
        let senderPublicKey = Array(body[21..<headerLength])
        let ciphertext = Array(body[headerLength...])
        // One record only (RFC 8291 §4): the record (plaintext, delimiter, tag) fits in rs.
        guard recordSize >= 18, ciphertext.count <= Int(recordSize) else {
            throw .undecryptable("the body holds more than one record (record size \(recordSize))")
        }
        let schedule = WebPushKeySchedule(
            ecdhSecret: try receiverKeys.sharedSecret(with: senderPublicKey),
            senderPublicKey: senderPublicKey, receiverPublicKey: receiverKeys.publicKey,
            authSecret: authSecret, salt: salt)
        guard var padded = AES128GCM.open(ciphertext, key: schedule.contentEncryptionKey, nonce: schedule.nonce) else {
            throw .undecryptable("the authentication tag does not match (wrong keys or a changed body)")
        }
        while padded.last == 0 { padded.removeLast() }
        guard padded.last == lastRecordDelimiter else {
            throw .undecryptable("the record does not end with the last-record delimiter 0x02")
        }
        padded.removeLast()
        return padded
    }
}
