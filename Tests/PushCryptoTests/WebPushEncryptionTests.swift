import PushCore
import PushCrypto
import XCTest

/// RFC 8291 Appendix A, byte for byte: every intermediate of the key schedule, the body, and
/// the subscriber's side decrypting it.
final class WebPushEncryptionTests: XCTestCase {
    private enum Appendix {
        static let plaintext = Array("When I grow up, I want to be a watermelon".utf8)
        static let senderPrivate = "yfWPiYE-n46HLnH0KqZOF1fJJU3MYrct3AELtAQ-oRw"
        static let senderPublic =
            "BP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A8"
        static let receiverPrivate = "q1dXpw3UpT5VOmu_cf_v6ih07Aems3njxI-JWgLcM94"
        static let receiverPublic =
            "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4"
        static let auth = "BTBZMqHH6r4Tts7J_aSIgg"
        static let salt = "DGv6ra1nlYgDCS1FRnbzlw"
        static let ecdhSecret = "kyrL1jIIOHEzg3sM2ZWRHDRB62YACZhhSlknJ672kSs"
        static let keyInfo =
            "V2ViUHVzaDogaW5mbwAEJXGyvs3942BVGq8e0PTNNmwRzr5VX4m8t7GGpTM5FzFo7OLr4BhZe9MEebhuPI-OztV3ylkYfpJGmQ22ggCLDgT-M_SrDepxkU21WCP3O1SUj0EwbZIHMtu5pZpTKGSCIA5Zent7wmC6HCJ5mFgJkuk5cwAvMBKiiujwa7t45ewP"
        static let authPRK = "Snr3JMxaHVDXHWJn5wdC52WjpCtd2EIEGBykDcZW32k"
        static let ikm = "S4lYMb_L0FxCeq0WhDx813KgSYqU26kOyzWUdsXYyrg"
        static let prk = "09_eUZGrsvxChDCGRCdkLiDXrReGOEVeSCdCcPBSJSc"
        static let cekInfo = "Q29udGVudC1FbmNvZGluZzogYWVzMTI4Z2NtAA"
        static let cek = "oIhVW04MRdy2XN9CiKLxTg"
        static let nonceInfo = "Q29udGVudC1FbmNvZGluZzogbm9uY2UA"
        static let nonce = "4h_95klXJ5E_qnoN"
        static let header =
            "DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A8"
        static let ciphertext =
            "8pfeW0KbunFT06SuDKoJH9Ql87S1QUrdirN6GcG7sFz1y1sqLgVi1VhjVkHsUoEsbI_0LpXMuGvnzQ"
    }

    private func bytes(_ base64url: String, file: StaticString = #filePath, line: UInt = #line) throws -> [UInt8] {
        try XCTUnwrap(Base64URL.decode(base64url), "not base64url: \(base64url)", file: file, line: line)
    }

    func testKeyPairsFromPrivateScalarsHaveTheAppendixPublicKeys() throws {
        XCTAssertEqual(try ECDHKeyPair(privateKey: bytes(Appendix.senderPrivate)).publicKey, try bytes(Appendix.senderPublic))
        XCTAssertEqual(
            try ECDHKeyPair(privateKey: bytes(Appendix.receiverPrivate)).publicKey, try bytes(Appendix.receiverPublic))
    }

    func testKeyScheduleMatchesEveryAppendixIntermediate() throws {
        let sender = try ECDHKeyPair(privateKey: bytes(Appendix.senderPrivate))
        let receiver = try ECDHKeyPair(privateKey: bytes(Appendix.receiverPrivate))
        let secret = try sender.sharedSecret(with: bytes(Appendix.receiverPublic))
        XCTAssertEqual(secret, try bytes(Appendix.ecdhSecret))
        XCTAssertEqual(try receiver.sharedSecret(with: bytes(Appendix.senderPublic)), secret, "ECDH is symmetric")

        let schedule = WebPushKeySchedule(
            ecdhSecret: secret, senderPublicKey: sender.publicKey, receiverPublicKey: receiver.publicKey,
            authSecret: try bytes(Appendix.auth), salt: try bytes(Appendix.salt))
        XCTAssertEqual(schedule.keyInfo, try bytes(Appendix.keyInfo))
        XCTAssertEqual(schedule.authPseudoRandomKey, try bytes(Appendix.authPRK))
        XCTAssertEqual(schedule.inputKeyMaterial, try bytes(Appendix.ikm))
        XCTAssertEqual(schedule.pseudoRandomKey, try bytes(Appendix.prk))
        XCTAssertEqual(WebPushKeySchedule.contentEncryptionKeyInfo, try bytes(Appendix.cekInfo))
        XCTAssertEqual(schedule.contentEncryptionKey, try bytes(Appendix.cek))
        XCTAssertEqual(WebPushKeySchedule.nonceInfo, try bytes(Appendix.nonceInfo))
        XCTAssertEqual(schedule.nonce, try bytes(Appendix.nonce))
    }

    func testBodyIsTheAppendixHeaderAndCiphertext() throws {
        let body = try WebPushEncryption.encrypt(
            Appendix.plaintext, receiverPublicKey: bytes(Appendix.receiverPublic), authSecret: bytes(Appendix.auth),
            senderKeys: ECDHKeyPair(privateKey: bytes(Appendix.senderPrivate)), salt: bytes(Appendix.salt))
        XCTAssertEqual(Array(body.prefix(WebPushEncryption.headerLength)), try bytes(Appendix.header))
        XCTAssertEqual(Array(body.dropFirst(WebPushEncryption.headerLength)), try bytes(Appendix.ciphertext))
        XCTAssertEqual(body.count, 144)
    }

    func testSubscriberDecryptsTheAppendixBody() throws {
        let body = try bytes(Appendix.header) + bytes(Appendix.ciphertext)
        let plaintext = try WebPushEncryption.decrypt(
            body, receiverKeys: ECDHKeyPair(privateKey: bytes(Appendix.receiverPrivate)), authSecret: bytes(Appendix.auth))
        XCTAssertEqual(plaintext, Appendix.plaintext)
    }

    func testRoundTripWithFreshKeysAndSalt() throws {
        let receiver = try ECDHKeyPair.generate()
        let auth = try SecureRandom.bytes(16)
        let plaintext = Array(#"{"title":"Hi","body":"ünïcödé"}"#.utf8)
        let first = try WebPushEncryption.encrypt(plaintext, receiverPublicKey: receiver.publicKey, authSecret: auth)
        let second = try WebPushEncryption.encrypt(plaintext, receiverPublicKey: receiver.publicKey, authSecret: auth)
        XCTAssertNotEqual(first.prefix(16), second.prefix(16), "each message has its own salt")
        XCTAssertNotEqual(first[21..<86], second[21..<86], "each message has its own sender key")
        XCTAssertEqual(try WebPushEncryption.decrypt(first, receiverKeys: receiver, authSecret: auth), plaintext)
        XCTAssertEqual(try WebPushEncryption.decrypt(second, receiverKeys: receiver, authSecret: auth), plaintext)
    }

    func testLargestPayloadMakesA4096ByteBody() throws {
        let receiver = try ECDHKeyPair.generate()
        let auth = try SecureRandom.bytes(16)
        // 86-byte header + 3993 bytes + delimiter + 16-byte tag = 4096.
        let body = try WebPushEncryption.encrypt(
            [UInt8](repeating: 0x41, count: 3993), receiverPublicKey: receiver.publicKey, authSecret: auth)
        XCTAssertEqual(body.count, 4096)
        XCTAssertEqual(try WebPushEncryption.decrypt(body, receiverKeys: receiver, authSecret: auth).count, 3993)
    }

    func testDecryptionRefusesWrongKeysAndDamagedBodies() throws {
        let receiver = try ECDHKeyPair.generate()
        let auth = try SecureRandom.bytes(16)
        let body = try WebPushEncryption.encrypt(Array("secret".utf8), receiverPublicKey: receiver.publicKey, authSecret: auth)
        XCTAssertThrowsMessage(
            try WebPushEncryption.decrypt(body, receiverKeys: ECDHKeyPair.generate(), authSecret: auth),
            "cannot decrypt: the authentication tag does not match (wrong keys or a changed body)")
        XCTAssertThrowsMessage(
            try WebPushEncryption.decrypt(body, receiverKeys: receiver, authSecret: SecureRandom.bytes(16)),
            "cannot decrypt: the authentication tag does not match (wrong keys or a changed body)")
        var flipped = body
        flipped[body.count - 20] ^= 1
        XCTAssertThrowsError(try WebPushEncryption.decrypt(flipped, receiverKeys: receiver, authSecret: auth))
        XCTAssertThrowsMessage(
            try WebPushEncryption.decrypt(Array(body.prefix(40)), receiverKeys: receiver, authSecret: auth),
            "cannot decrypt: the body is 40 bytes, shorter than the 86-byte aes128gcm header")
        var shortKeyID = body
        shortKeyID[20] = 33
        XCTAssertThrowsMessage(
            try WebPushEncryption.decrypt(shortKeyID, receiverKeys: receiver, authSecret: auth),
            "cannot decrypt: the key id is 33 bytes, expected a 65-byte P-256 public key")
        var notAPoint = body
        notAPoint[30] ^= 0xFF
        XCTAssertThrowsError(try WebPushEncryption.decrypt(notAPoint, receiverKeys: receiver, authSecret: auth))
    }

    func testSubscriptionKeysThatAreNotP256PointsAreRefused() throws {
        let auth = try SecureRandom.bytes(16)
        XCTAssertThrowsMessage(
            try WebPushEncryption.encrypt([1], receiverPublicKey: [4, 1, 2], authSecret: auth),
            "invalid public key: expected a 65-byte uncompressed P-256 point, got 3 bytes")
        var offCurve = try ECDHKeyPair.generate().publicKey
        offCurve[64] ^= 1
        XCTAssertThrowsError(try WebPushEncryption.encrypt([1], receiverPublicKey: offCurve, authSecret: auth))
        XCTAssertThrowsMessage(
            try WebPushEncryption.encrypt([1], receiverPublicKey: ECDHKeyPair.generate().publicKey, authSecret: [1, 2]),
            "invalid public key: the auth secret is 2 bytes, expected 16")
        XCTAssertThrowsMessage(
            try ECDHKeyPair(privateKey: [UInt8](repeating: 0, count: 32)),
            "invalid private key: the scalar is not between 1 and the order of P-256")
    }

    /// RFC 5869 Appendix A.1, so that HKDF is checked apart from Web Push's use of it.
    func testHKDFMatchesRFC5869TestCase1() {
        let ikm = [UInt8](repeating: 0x0b, count: 22)
        let salt: [UInt8] = Array(0x00...0x0c)
        let info: [UInt8] = Array(0xf0...0xf9)
        let prk = HKDF.extract(salt: salt, inputKeyMaterial: ikm)
        XCTAssertEqual(Hex.encode(prk), "077709362c2e32df0ddc3f0dc47bba6390b6c73bb50f9c3122ec844ad7c2b3e5")
        XCTAssertEqual(
            Hex.encode(HKDF.expand(pseudoRandomKey: prk, info: info, length: 42)),
            "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865")
    }
}
