/// An interest name: up to 164 characters, each an ASCII letter, a digit or one of `_-=@,.;`
/// (today's SDKs, the device API and the publish API). The old client API keeps its own
/// rule, which refuses the hyphen (Beams then reserved it for prefixes such as `private-`).
struct InterestName {
    static let maximumLength = 164

    /// Which rule a name is held to.
    enum Rule {
        /// `_-=@,.;`: the device API's and the publish API's.
        case current
        /// `_=@,.;`: the old client API's.
        case clientAPI

        var text: String {
            "up to 164 characters, each an ASCII letter, a digit or one of \(self == .current ? "_-=@,.;" : "_=@,.;")"
        }
    }

    /// Why a text is not an interest name.
    enum Refusal: Error, Equatable {
        case empty(Rule)
        case tooLong(characters: Int, Rule)
        case hyphen
        case character(Unicode.Scalar, Rule)

        /// The reason in words, followed by the rule.
        var description: String {
            let (why, rule): (String, Rule)
            switch self {
            case .empty(let named): (why, rule) = ("it is empty", named)
            case .tooLong(let count, let named):
                (why, rule) = ("it has \(count) characters, over the limit of \(InterestName.maximumLength)", named)
            case .hyphen:
                (why, rule) = ("the hyphen (-) is reserved for prefixes such as private- in the client API", .clientAPI)
            case .character(let scalar, let named): (why, rule) = ("\(Self.show(scalar)) is not allowed", named)
            }
            return "\(why) (an interest name is \(rule.text))"
        }

        /// Printable ASCII as itself in quotes, anything else as U+XXXX.
        private static func show(_ scalar: Unicode.Scalar) -> String {
            if scalar.value > 0x20, scalar.value < 0x7F { return "'\(Character(scalar))'" }
            let hex = String(scalar.value, radix: 16, uppercase: true)
            return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
        }
    }

    let rawValue: String

    init(validating text: String, rule: Rule = .current) throws(Refusal) {
        guard !text.isEmpty else { throw .empty(rule) }
        var count = 0
        for scalar in text.unicodeScalars {
            if scalar == "-" {
                guard rule == .current else { throw .hyphen }
            } else {
                guard scalar.isASCII, Self.isAllowed(UInt8(scalar.value)) else { throw .character(scalar, rule) }
            }
            count += 1
        }
        guard count <= Self.maximumLength else { throw .tooLong(characters: count, rule) }
        rawValue = text
    }

    private static func isAllowed(_ byte: UInt8) -> Bool {
        byte.isASCIIAlphanumeric || "_=@,.;".utf8.contains(byte)
    }
}
