/// An interest name: up to 164 characters, each an ASCII letter, a digit or one of `_=@,.;`.
/// The client API refuses the hyphen (reserved for prefixes such as `private-`); the publish
/// API's own rule admits it, which only means such a publish reaches nobody.
struct InterestName {
    static let maximumLength = 164

    let rawValue: String

    init?(_ text: String, allowingHyphen: Bool = false) {
        let bytes = Array(text.utf8)
        guard !bytes.isEmpty, bytes.count <= Self.maximumLength,
            bytes.allSatisfy({ Self.isAllowed($0) || (allowingHyphen && $0 == UInt8(ascii: "-")) })
        else { return nil }
        rawValue = text
    }

    static let rule = "up to 164 characters, each an ASCII letter, a digit or one of _=@,.;"

    private static func isAllowed(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "="), UInt8(ascii: "@"),
            UInt8(ascii: ","), UInt8(ascii: "."), UInt8(ascii: ";"):
            return true
        default:
            return false
        }
    }
}
