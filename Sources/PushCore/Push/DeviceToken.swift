/// A device token in pushgate's one canonical form: its bytes. An APNs token is the raw bytes
/// Apple issued (shown as hex); an FCM registration token is the UTF-8 bytes of its text.
/// Every dialect's encoding (hex, base64, `apns://`, `gcm://`, plain text) parses to this, so a
/// token reported in one dialect is found when another names it in its own encoding.
public struct DeviceToken: Hashable, Sendable {
    public let bytes: [UInt8]

    public init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// Longest token accepted in any encoding; real ones are 32 bytes (APNs) or ~200 (FCM).
    public static let maximumLength = 1024

    /// A token that came base64-encoded (Acrobits, the Diffusion bridge's `apns://`).
    @inlinable
    public static func fromBase64(_ text: some StringProtocol) -> DeviceToken? {
        guard text.utf8.count <= maximumLength * 2, let bytes = Base64.decode(text), !bytes.isEmpty else {
            return nil
        }
        return DeviceToken(bytes: bytes)
    }

    /// An APNs token written as hex (cospace, Beams, pnm2).
    public static func fromHex(_ text: some StringProtocol) -> DeviceToken? {
        let utf8 = Array(text.utf8)
        guard !utf8.isEmpty, utf8.count % 2 == 0, utf8.count <= maximumLength * 2 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count / 2)
        var index = 0
        while index < utf8.count {
            guard let high = Hex.value(ofDigit: utf8[index]), let low = Hex.value(ofDigit: utf8[index + 1]) else {
                return nil
            }
            bytes.append(high << 4 | low)
            index += 2
        }
        return DeviceToken(bytes: bytes)
    }

    /// An FCM registration token as Google issued it: printable ASCII, no spaces.
    public static func fromFCMText(_ text: some StringProtocol) -> DeviceToken? {
        let bytes = Array(text.utf8)
        guard !bytes.isEmpty, bytes.count <= maximumLength, bytes.allSatisfy(isFCMTokenByte) else { return nil }
        return DeviceToken(bytes: bytes)
    }

    /// The bytes read as an FCM token's text, when they are one.
    public var fcmText: String? {
        guard bytes.allSatisfy(Self.isFCMTokenByte) else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }

    public var hex: String { Hex.encode(bytes) }

    public var base64: String { Base64.encode(bytes) }

    /// How the token is written for `platform`: hex for APNs, the token text for FCM, the
    /// subscription's JSON for the web.
    public func text(for platform: Platform?) -> String {
        switch platform {
        case .apns: return hex
        case .fcm: return fcmText ?? base64
        case .web: return WebPushSubscription(token: self) != nil ? String(decoding: bytes, as: UTF8.self) : base64
        case nil: return fcmText ?? hex
        }
    }

    /// Is this token plausible for `platform`? APNs tokens are at least 32 bytes (Apple may
    /// lengthen them); FCM tokens are printable text; a web token is a subscription.
    public func isPlausible(for platform: Platform) -> Bool {
        switch platform {
        case .apns: return bytes.count >= 32 && bytes.count <= 255
        case .fcm: return fcmText != nil && bytes.count >= 8
        case .web: return WebPushSubscription(token: self) != nil
        }
    }

    private static func isFCMTokenByte(_ byte: UInt8) -> Bool {
        byte > 0x20 && byte < 0x7F
    }
}

extension DeviceToken: CustomStringConvertible {
    /// Shortened, so that logs never carry a whole token.
    /// The hex of the first four bytes and of the last two, or of all of them up to six.
    /// Taken from the bytes: the outbox shortens a token for every push it logs.
    public var description: String {
        guard bytes.count > 6 else { return hex }
        return Hex.encode(bytes.prefix(4)) + "…" + Hex.encode(bytes.suffix(2))
    }
}
