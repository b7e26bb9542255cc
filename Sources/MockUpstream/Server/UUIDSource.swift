import Synchronization

/// Unique UUID-shaped ids (version 4 layout, lower-case) for `apns-id` and message names:
/// a random 64-bit prefix per source and a counter. Foundation's `UUID()` reads /dev/urandom
/// on every call, which showed as the costliest step of a mock request under load.
final class UUIDSource: Sendable {
    private let prefix: UInt64
    private let counter = Atomic<UInt64>(0)

    init() {
        prefix = UInt64.random(in: .min ... .max)
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    func next() -> String {
        let serial = counter.wrappingAdd(1, ordering: .relaxed).newValue
        // Version 4 in the high nibble of byte 6, variant 10 in the top bits of byte 8.
        let high = (prefix & 0xFFFF_FFFF_FFFF_0FFF) | 0x0000_0000_0000_4000
        let low = (serial & 0x3FFF_FFFF_FFFF_FFFF) | 0x8000_0000_0000_0000
        var text = [UInt8]()
        text.reserveCapacity(36)
        var digit = 0
        for word in [high, low] {
            for shift in stride(from: 60, through: 0, by: -4) {
                if digit == 8 || digit == 12 || digit == 16 || digit == 20 { text.append(UInt8(ascii: "-")) }
                text.append(Self.hexDigits[Int((word >> UInt64(shift)) & 0xF)])
                digit += 1
            }
        }
        return String(decoding: text, as: UTF8.self)
    }
}
