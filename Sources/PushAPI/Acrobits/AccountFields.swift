import PushCore

/// The account a reporter request is about: its selector (required) and username (optional).
struct AccountFields {
    let selector: String
    let username: String?

    static let maximumSelectorLength = 200
    static let maximumUsernameLength = 256

    init(_ parameters: ReporterParameters) throws(ReporterError) {
        guard let (_, selector) = parameters.value(["selector"]) else { throw .missing("selector") }
        // Characters are counted only past the UTF-8 length (never fewer): counting them
        // means grapheme breaking, on every report.
        guard selector.utf8.count <= Self.maximumSelectorLength || selector.count <= Self.maximumSelectorLength else {
            throw .tooLong(field: "selector", limit: Self.maximumSelectorLength)
        }
        // Selectors are a SHA1 hash with a suffix; anything printable is accepted, nothing that
        // could break a log line or a later URL.
        var contiguous = selector
        guard contiguous.withUTF8({ $0.allSatisfy { $0 > 0x20 && $0 < 0x7F } }) else {
            throw .invalidValue(field: "selector", reason: "must be printable ASCII without spaces")
        }
        self.selector = selector
        username = parameters.value(["username"])?.value
        guard let username else { return }
        guard username.utf8.count <= Self.maximumUsernameLength || username.count <= Self.maximumUsernameLength else {
            throw .tooLong(field: "username", limit: Self.maximumUsernameLength)
        }
        // Printable ASCII, the usual username, has no control characters to look up.
        let printableASCII = username.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F }
        guard printableASCII || !username.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else {
            throw .invalidValue(field: "username", reason: "must not contain control characters")
        }
    }
}
