/// An interest name, by the client API's rules: up to 164 characters, each an ASCII letter, a
/// digit or one of `_=@,.;`. The hyphen is not allowed (Beams reserves it for prefixes such as
/// `private-`). The publish API checks every name it is given by the same rules.
struct InterestName {
    static let maximumLength = 164

    static let rule = "up to 164 characters, each an ASCII letter, a digit or one of _=@,.;"

    /// Why a text is not an interest name.
    enum Refusal: Error, Equatable {
        case empty
        case tooLong(characters: Int)
        case hyphen
        case character(Unicode.Scalar)

        /// The reason in words, followed by the rule.
        var description: String {
            let why: String
            switch self {
            case .empty: why = "it is empty"
            case .tooLong(let count):
                why = "it has \(count) characters, over the limit of \(InterestName.maximumLength)"
            case .hyphen: why = "the hyphen (-) is reserved for prefixes such as private-"
            case .character(let scalar): why = "\(Self.show(scalar)) is not allowed"
            }
            return "\(why) (an interest name is \(InterestName.rule))"
        }

        /// Printable ASCII as itself in quotes, anything else as U+XXXX.
        private static func show(_ scalar: Unicode.Scalar) -> String {
            if scalar.value > 0x20, scalar.value < 0x7F { return "'\(Character(scalar))'" }
            let hex = String(scalar.value, radix: 16, uppercase: true)
            return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
        }
    }

    let rawValue: String

    init(validating text: String) throws(Refusal) {
        guard !text.isEmpty else { throw .empty }
        var count = 0
        for scalar in text.unicodeScalars {
            guard scalar.isASCII, Self.isAllowed(UInt8(scalar.value)) else {
                throw scalar == "-" ? .hyphen : .character(scalar)
            }
            count += 1
        }
        guard count <= Self.maximumLength else { throw .tooLong(characters: count) }
        rawValue = text
    }

    init?(_ text: String) {
        guard let name = try? InterestName(validating: text) else { return nil }
        self = name
    }

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
