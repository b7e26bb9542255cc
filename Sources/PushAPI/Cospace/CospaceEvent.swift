import Foundation
import PushCore

/// One of the document's five push events, checked field by field, with the payload each
/// platform receives: for GCM/FCM a data message of strings only (GCM's advice, as the
/// document notes for `page_count` and `time`), for APNs a background push whose numbers
/// stay numbers.
public struct CospaceEvent: Sendable, Equatable {
    /// How a field's value is typed in the APNs payload.
    enum FieldType: Sendable {
        case text
        /// A whole number: a JSON integer, or its decimal digits as a string.
        case integer
    }

    /// The fields of each event besides `owner` and `message`, in the document's order.
    static let definitions: [String: [(name: String, type: FieldType)]] = [
        "fax_new": [("fax", .text), ("phone", .text), ("page_count", .integer)],
        "recording_new": [("recording", .text), ("phone", .text)],
        "dialplan_callreverse_start": [("phone_from", .text), ("phone_to", .text)],
        "dialplan_callreverse_stop": [("phone_from", .text), ("phone_to", .text)],
        "chat_message": [
            ("chat", .text), ("uuid", .text), ("time", .integer), ("user", .text), ("user_name", .text),
            ("type", .text), ("text", .text),
        ],
    ]

    public static var messages: [String] { definitions.keys.sorted() }

    /// The user's UUID.
    public let owner: String
    public let message: String
    /// Every field of the event in the document's order, with its value as text.
    let fields: [(name: String, type: FieldType, text: String)]

    public static func == (lhs: CospaceEvent, rhs: CospaceEvent) -> Bool {
        lhs.owner == rhs.owner && lhs.message == rhs.message
            && lhs.fields.map { "\($0.name)=\($0.text)" } == rhs.fields.map { "\($0.name)=\($0.text)" }
    }

    /// Checks a sender's JSON object: `owner`, `message` and exactly the event's fields.
    init(_ body: [String: JSONValue]) throws(CospaceError) {
        guard case .string(let message)? = body["message"] else {
            let status = body["message"] == nil ? "missing-field" : "invalid-field"
            throw CospaceError.invalidField(status: status, field: "message")
        }
        guard let definition = Self.definitions[message] else { throw .invalid("unknown-message") }
        guard let owner = body["owner"] else { throw .invalidField(status: "missing-field", field: "owner") }
        // The length too: Foundation parses the UUID as a C string, so a NUL ends it early
        // and whatever follows (which no store could look up alike) would pass.
        guard case .string(let ownerText) = owner, ownerText.utf8.count == 36, UUID(uuidString: ownerText) != nil else {
            throw .invalidField(status: "invalid-field", field: "owner")
        }
        let known = Set(definition.map(\.name) + ["owner", "message"])
        if let unknown = body.keys.sorted().first(where: { !known.contains($0) }) {
            throw .invalidField(status: "unknown-field", field: unknown)
        }
        var fields: [(name: String, type: FieldType, text: String)] = []
        for (name, type) in definition {
            guard let value = body[name] else { throw .invalidField(status: "missing-field", field: name) }
            guard let text = Self.text(value, type: type) else {
                throw .invalidField(status: "invalid-field", field: name)
            }
            fields.append((name, type, text))
        }
        self.owner = ownerText
        self.message = message
        self.fields = fields
    }

    /// From `pushgate event --field k=v`: values are text, and integer fields must be digits.
    public init(owner: String, message: String, fields: [String: String]) throws(CospaceEventError) {
        do throws(CospaceError) {
            try self.init(
                ["owner": .string(owner), "message": .string(message)].merging(fields.mapValues(JSONValue.string)) {
                    $1
                })
        } catch {
            switch error {
            case .invalid(let status): throw CospaceEventError(description: status)
            case .invalidField(let status, let field): throw CospaceEventError(description: "\(status): \(field)")
            default: throw CospaceEventError(description: "\(error)")
            }
        }
    }

    private static func text(_ value: JSONValue, type: FieldType) -> String? {
        switch (type, value) {
        case (.text, .string(let text)):
            return text
        case (.integer, .number(let number)):
            guard number.rounded() == number, abs(number) < 1e15 else { return nil }
            return String(Int64(number))
        case (.integer, .string(let text)):
            let digits = text.hasPrefix("-") ? text.dropFirst() : Substring(text)
            guard !digits.isEmpty, digits.count <= 15, digits.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
                let number = Int64(text)
            else { return nil }
            return String(number)
        default:
            return nil
        }
    }

    /// `{"aps": {"content-available": 1}, "owner": …, "message": …, …}` in the document's order.
    public var apnsPayload: [UInt8] {
        var json =
            #"{"aps":{"content-available":1},"owner":"# + Self.quoted(owner) + #","message":"# + Self.quoted(message)
        for field in fields {
            json +=
                "," + Self.quoted(field.name) + ":" + (field.type == .integer ? field.text : Self.quoted(field.text))
        }
        return Array((json + "}").utf8)
    }

    /// The FCM `data` object: every value a string.
    public var fcmData: [String: JSONValue] {
        var data: [String: JSONValue] = ["owner": .string(owner), "message": .string(message)]
        for field in fields { data[field.name] = .string(field.text) }
        return data
    }

    /// What the outbox fans out to each of the owner's devices. Background pushes must go
    /// at priority 5 (developer.apple.com, "Pushing background updates to your App").
    public var outboxMessage: OutboxMessage {
        OutboxMessage(
            source: "cospace:event",
            apns: APNsMessage(payload: apnsPayload, pushType: .background, priority: 5),
            fcm: FCMMessage(fields: ["data": .object(fcmData)]))
    }

    private static func quoted(_ text: String) -> String {
        String(decoding: JSONValue.string(text).encoded(), as: UTF8.self)
    }
}
