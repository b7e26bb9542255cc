import PushCore

/// One push's answer, `{"code": …, "response": "…"}` as the document's examples show it, plus
/// `status` with the same value, as its attribute list names the field. Thrown, it refuses the
/// whole request, with its code as the HTTP status (see `Pnm2Refusal`).
struct Pnm2Reply: Error, Sendable, Equatable {
    var code: Int
    var response: String

    static let sent = Pnm2Reply(code: 200, response: "Your message was sent.")

    /// What a caller sends that is not a push object, or one that cannot be sent as it is.
    static func badObject(_ detail: String? = nil) -> Pnm2Reply {
        Pnm2Reply(code: 400, response: detail.map { "Bad object you sent here: \($0)" } ?? "Bad object you sent here")
    }

    /// A fault upstream or on our side that outlived the retry.
    static func serviceError(_ detail: String) -> Pnm2Reply {
        Pnm2Reply(code: 500, response: "Push service error: \(detail)")
    }

    /// Rendered like the document (Python's `json.dumps` spacing), `status` last.
    var json: String {
        // Appended, not interpolated: every send answers with one, and interpolation went
        // through `TextOutputStream` for each of its six parts.
        let code = String(code)
        var json = #"{"code": "#
        json.reserveCapacity(response.utf8.count + 48)
        json += code
        json += #", "response": "#
        json += Self.quoted(response)
        json += #", "status": "#
        json += code
        json += "}"
        return json
    }

    static func list(_ replies: [Pnm2Reply]) -> String {
        "[" + replies.map(\.json).joined(separator: ", ") + "]"
    }

    private static func quoted(_ text: String) -> String {
        if !text.utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) {
            return "\"" + text + "\""
        }
        var output = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: output.unicodeScalars.append(scalar)
            }
        }
        return output + "\""
    }
}

/// A whole request refused in pnm2's shape with headers of its own (`Allow`, `WWW-Authenticate`,
/// `Retry-After`).
struct Pnm2Refusal: DialectError {
    var reply: Pnm2Reply
    var headers: [(name: String, value: String)]

    init(_ code: Int, _ message: String, headers: [(name: String, value: String)] = []) {
        reply = Pnm2Reply(code: code, response: message)
        self.headers = headers
    }

    var response: Response {
        .json(reply.code, Array(reply.json.utf8), headers: headers)
    }
}
