/// Whether bytes are a P-256 public key as Web Push carries one (a subscription's `p256dh`):
/// 65 bytes, `0x04 ‖ x ‖ y`, and a point on the curve. A subscription with any other key can
/// never be encrypted for, so the dialects refuse it at registration.
public enum P256PublicPoint {
    public static func isValid(_ uncompressed: [UInt8]) -> Bool {
        // OpenSSL's import refuses coordinates outside the field and points off the curve.
        (try? P256Key.publicKey(uncompressedPoint: uncompressed)) != nil
    }
}
