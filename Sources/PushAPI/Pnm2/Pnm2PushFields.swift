import PushCore

/// Reads one push object (a JSON object, or the old service's form fields) into a `Pnm2Push`,
/// naming the field that is wrong. Names match as the document writes them, else ignoring
/// case (`appid`, `deviceToken`): the old service's scripts vary.
struct Pnm2PushFields {
    private let exact: [String: JSONValue]
    private let folded: [String: JSONValue]

    static let maximumTokenLength = 4096
    static let maximumSelectorLength = 200
    static let maximumTextLength = 4096

    /// Every name `push()` reads, as the document writes them. No two are the same ignoring
    /// case, so an object whose names are all among them (what PBXs send) has nothing to be
    /// found by folding case: its lookups skip making the folded copy.
    static let documentedNames: Set<String> = [
        "verb", "AppId", "DeviceToken", "Selector", "Message", "UserDisplayName", "UserName", "Badge", "Sound",
        "ContentType", "Id", "ThreadId",
    ]

    init(_ object: [String: JSONValue]) {
        exact = object
        if object.keys.allSatisfy(Self.documentedNames.contains) {
            folded = [:]
            return
        }
        var folded: [String: JSONValue] = [:]
        for (name, value) in object.sorted(by: { $0.key < $1.key }) where folded[name.lowercased()] == nil {
            folded[name.lowercased()] = value
        }
        self.folded = folded
    }

    init(_ form: FormParameters) {
        var object: [String: JSONValue] = [:]
        for (name, value) in form.pairs {
            object[name] = .string(value)
        }
        self.init(object)
    }

    func push() throws(Pnm2Reply) -> Pnm2Push {
        guard let verbText = try text("verb") else { throw .badObject("verb is required") }
        guard let verb = Pnm2Verb(rawValue: verbText) else {
            throw .badObject("unknown verb (use NotifyTextMessage, NotifyGenericTextMessage or NotifyReprovision)")
        }
        guard let appText = try text("AppId") else { throw .badObject("AppId is required") }
        guard let appID = AppID(appText) else { throw .badObject("AppId is not an application id") }
        let deviceToken = try text("DeviceToken", limit: Self.maximumTokenLength)
        let selector = try text("Selector", limit: Self.maximumSelectorLength)
        if let selector, !selector.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) {
            throw .badObject("Selector must be printable ASCII without spaces")
        }
        if verb.needsSelector, selector == nil {
            throw .badObject("Selector is required for \(verb.rawValue)")
        }
        if deviceToken == nil, selector == nil {
            throw .badObject("DeviceToken is required")
        }
        let message = try text("Message")
        if verb == .notifyGenericTextMessage, message == nil {
            throw .badObject("Message is required for NotifyGenericTextMessage")
        }
        let displayName = try text("UserDisplayName")
        let userName = try text("UserName")
        let sender = displayName ?? userName
        return Pnm2Push(
            verb: verb, appID: appID, deviceToken: deviceToken, selector: selector, message: message,
            badge: try badge(), sound: try text("Sound"), sender: sender,
            contentType: try text("ContentType"), messageID: try text("Id", numbersAllowed: true),
            threadID: try text("ThreadId"))
    }

    private func value(_ name: String) -> JSONValue? {
        if let value = exact[name] { return value }
        return folded.isEmpty ? nil : folded[name.lowercased()]
    }

    /// A string field; absent, `null` and empty all mean "not given".
    private func text(_ name: String, limit: Int = maximumTextLength, numbersAllowed: Bool = false) throws(Pnm2Reply)
        -> String?
    {
        switch value(name) {
        case nil, .null?:
            return nil
        case .string(let text)?:
            let trimmed = text.trimmingASCIIWhitespace()
            if trimmed.isEmpty { return nil }
            // Counted in bytes first: never fewer than characters, and no grapheme breaking.
            guard trimmed.utf8.count <= limit || trimmed.count <= limit else {
                throw .badObject("\(name) is longer than \(limit) characters")
            }
            return trimmed
        case .number(let number)? where numbersAllowed && number.rounded() == number && abs(number) < 1e15:
            return String(Int64(number))
        default:
            throw .badObject("\(name) must be a string")
        }
    }

    /// The unread count: a JSON number, or digits (the old service's form fields are text).
    private func badge() throws(Pnm2Reply) -> Int? {
        switch value("Badge") {
        case nil, .null?:
            return nil
        case .number(let number)? where number >= 0 && number <= 999_999_999 && number.rounded() == number:
            return Int(number)
        case .string(let text)?:
            let trimmed = text.trimmingASCIIWhitespace()
            if trimmed.isEmpty { return nil }
            let digits = trimmed.utf8.count <= 9 && trimmed.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
            if digits, let value = Int(trimmed) { return value }
        default:
            break
        }
        throw .badObject("Badge must be a non-negative integer")
    }
}
