import COpenSSL
import Foundation

/// EC P-256 keys built and taken apart through OpenSSL 3's EVP and parameter APIs: generated,
/// imported from the raw forms Web Push uses (a 65-byte uncompressed point, a 32-byte scalar),
/// and exported as those forms again.
enum P256Key {
    /// The length of an uncompressed point: 0x04 ‖ x (32) ‖ y (32).
    static let uncompressedPointLength = 65
    static let scalarLength = 32

    static func generate() throws(CryptoError) -> EVPKey {
        OpenSSLErrorQueue.clear()
        guard let context = EVP_PKEY_CTX_new_from_name(nil, "EC", nil) else {
            throw OpenSSLErrorQueue.error("EVP_PKEY_CTX_new_from_name")
        }
        defer { EVP_PKEY_CTX_free(context) }
        guard EVP_PKEY_keygen_init(context) == 1, EVP_PKEY_CTX_set_group_name(context, "P-256") == 1 else {
            throw OpenSSLErrorQueue.error("EVP_PKEY_keygen_init")
        }
        var key: OpaquePointer?
        guard EVP_PKEY_generate(context, &key) == 1, let key else {
            throw OpenSSLErrorQueue.error("EVP_PKEY_generate")
        }
        return EVPKey(taking: key)
    }

    /// A public key from its uncompressed point; OpenSSL refuses points that are not on the curve.
    static func publicKey(uncompressedPoint point: [UInt8]) throws(CryptoError) -> EVPKey {
        guard point.count == uncompressedPointLength, point[0] == 0x04 else {
            throw .invalidPublicKey("expected a 65-byte uncompressed P-256 point, got \(point.count) bytes")
        }
        return try fromData(
            selection: pushgate_evp_pkey_public_key(), operation: "importing the P-256 public key",
            privateNumber: nil, point: point)
    }

    /// A key pair from its private scalar; the public point is computed, since OpenSSL 3.0 does
    /// not derive it on import and ECDH senders must send it.
    static func keyPair(privateScalar scalar: [UInt8]) throws(CryptoError) -> EVPKey {
        guard scalar.count == scalarLength else {
            throw .invalidPrivateKey("expected a 32-byte P-256 scalar, got \(scalar.count) bytes")
        }
        let point = try publicPoint(ofScalar: scalar)
        guard let privateNumber = BN_bin2bn(scalar, Int32(scalar.count), nil) else {
            throw OpenSSLErrorQueue.error("BN_bin2bn")
        }
        defer { BN_clear_free(privateNumber) }
        return try fromData(
            selection: pushgate_evp_pkey_keypair(), operation: "importing the P-256 key pair",
            privateNumber: privateNumber, point: point)
    }

    /// The key's public point, uncompressed.
    static func publicPoint(of key: EVPKey) throws(CryptoError) -> [UInt8] {
        OpenSSLErrorQueue.clear()
        var point = [UInt8](repeating: 0, count: uncompressedPointLength)
        var length = 0
        guard
            EVP_PKEY_get_octet_string_param(key.pointer, OSSL_PKEY_PARAM_PUB_KEY, &point, point.count, &length) == 1,
            length == uncompressedPointLength, point[0] == 0x04
        else { throw OpenSSLErrorQueue.error("reading the P-256 public point") }
        return point
    }

    private static func publicPoint(ofScalar scalar: [UInt8]) throws(CryptoError) -> [UInt8] {
        OpenSSLErrorQueue.clear()
        guard let group = EC_GROUP_new_by_curve_name(NID_X9_62_prime256v1) else {
            throw OpenSSLErrorQueue.error("EC_GROUP_new_by_curve_name")
        }
        defer { EC_GROUP_free(group) }
        guard let number = BN_bin2bn(scalar, Int32(scalar.count), nil) else { throw OpenSSLErrorQueue.error("BN_bin2bn") }
        defer { BN_clear_free(number) }
        guard BN_is_zero(number) == 0, BN_cmp(number, EC_GROUP_get0_order(group)) < 0 else {
            throw .invalidPrivateKey("the scalar is not between 1 and the order of P-256")
        }
        guard let point = EC_POINT_new(group) else { throw OpenSSLErrorQueue.error("EC_POINT_new") }
        defer { EC_POINT_free(point) }
        guard EC_POINT_mul(group, point, number, nil, nil, nil) == 1 else {
            throw OpenSSLErrorQueue.error("EC_POINT_mul")
        }
        var output = [UInt8](repeating: 0, count: uncompressedPointLength)
        guard
            EC_POINT_point2oct(group, point, POINT_CONVERSION_UNCOMPRESSED, &output, output.count, nil)
                == uncompressedPointLength
        else { throw OpenSSLErrorQueue.error("EC_POINT_point2oct") }
        return output
    }

    /// OSSL_PARAM_BLD keeps pointers to the names, strings and numbers pushed into it until
    /// `OSSL_PARAM_BLD_to_param` copies them, so everything pushed lives in `StableParameters`
    /// (C copies freed after the build) rather than in Swift's temporary bridged pointers.
    private static func fromData(
        selection: Int32, operation: String, privateNumber: OpaquePointer?, point: [UInt8]
    ) throws(CryptoError) -> EVPKey {
        OpenSSLErrorQueue.clear()
        let stable = StableParameters(point: point)
        defer { stable.release() }
        guard let builder = OSSL_PARAM_BLD_new() else { throw OpenSSLErrorQueue.error("OSSL_PARAM_BLD_new") }
        defer { OSSL_PARAM_BLD_free(builder) }
        guard OSSL_PARAM_BLD_push_utf8_string(builder, stable.groupName, stable.group, 0) == 1,
            OSSL_PARAM_BLD_push_octet_string(builder, stable.publicKeyName, stable.point.baseAddress, stable.point.count)
                == 1
        else { throw OpenSSLErrorQueue.error("OSSL_PARAM_BLD_push") }
        if let privateNumber {
            guard OSSL_PARAM_BLD_push_BN(builder, stable.privateKeyName, privateNumber) == 1 else {
                throw OpenSSLErrorQueue.error("OSSL_PARAM_BLD_push_BN")
            }
        }
        guard let built = OSSL_PARAM_BLD_to_param(builder) else { throw OpenSSLErrorQueue.error("OSSL_PARAM_BLD_to_param") }
        defer { OSSL_PARAM_free(built) }
        guard let context = EVP_PKEY_CTX_new_from_name(nil, "EC", nil) else {
            throw OpenSSLErrorQueue.error("EVP_PKEY_CTX_new_from_name")
        }
        defer { EVP_PKEY_CTX_free(context) }
        var key: OpaquePointer?
        guard EVP_PKEY_fromdata_init(context) == 1, EVP_PKEY_fromdata(context, &key, selection, built) == 1, let key
        else { throw OpenSSLErrorQueue.error(operation) }
        return EVPKey(taking: key)
    }
}

/// C copies of what a parameter build points at, alive until `free()`.
private struct StableParameters {
    let groupName = strdup(OSSL_PKEY_PARAM_GROUP_NAME)
    let group = strdup("prime256v1")
    let publicKeyName = strdup(OSSL_PKEY_PARAM_PUB_KEY)
    let privateKeyName = strdup(OSSL_PKEY_PARAM_PRIV_KEY)
    let point: UnsafeMutableRawBufferPointer

    init(point bytes: [UInt8]) {
        point = UnsafeMutableRawBufferPointer.allocate(byteCount: bytes.count, alignment: 1)
        point.copyBytes(from: bytes)
    }

    func release() {
        for pointer in [groupName, group, publicKeyName, privateKeyName] { free(pointer) }
        point.deallocate()
    }
}
