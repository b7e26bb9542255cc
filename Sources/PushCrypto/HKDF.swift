/// HKDF with HMAC-SHA-256 (RFC 5869), the key derivation of Web Push encryption (RFC 8291).
public enum HKDF {
    /// HKDF-Extract: `PRK = HMAC-SHA-256(salt, input key material)`.
    public static func extract(salt: [UInt8], inputKeyMaterial: [UInt8]) -> [UInt8] {
        HMACSHA256.mac(key: salt, message: inputKeyMaterial)
    }

    /// HKDF-Expand to `length` bytes (at most 32 · 255). Web Push never asks for more than 32,
    /// but the loop keeps the function what its name says.
    public static func expand(pseudoRandomKey: [UInt8], info: [UInt8], length: Int) -> [UInt8] {
        precondition(length <= 32 * 255, "HKDF-Expand output longer than RFC 5869 allows")
        var output: [UInt8] = []
        var previous: [UInt8] = []
        var counter: UInt8 = 1
        while output.count < length {
            previous = HMACSHA256.mac(key: pseudoRandomKey, message: previous + info + [counter])
            output += previous
            counter &+= 1
        }
        return Array(output.prefix(length))
    }
}
