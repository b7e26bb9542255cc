import PushCore

/// The three addresses of the Acrobits HTTP push gateway.
enum Pnm2Endpoint: Equatable {
    /// `/pnm2/send`: one JSON object, one reply object.
    case send
    /// `/pnm2/multisend`: a JSON list (or one object), a reply list in request order.
    case multisend
    /// `/pnm2`: the old form-urlencoded service, one push, the reply's code as HTTP status.
    case form

    /// A dead token's reply, worded as the document's example for each address (the two
    /// examples differ; a script matching one of them keeps working).
    var deadToken: Pnm2Reply {
        switch self {
        case .send, .form: return Pnm2Reply(code: 404, response: "Pnmediator returned unknown error: ERR:404 Not Found")
        case .multisend: return Pnm2Reply(code: 404, response: "Pnmediator returned an error: ERR:404 Not Found\n")
        }
    }

    /// The answer to a request's pushes: one reply object, a reply list, or (the old service)
    /// one reply with its code as the HTTP status.
    func response(_ replies: [Pnm2Reply]) -> Response {
        switch self {
        case .send: return .json(200, Array(replies[0].json.utf8))
        case .multisend: return .json(200, Array(Pnm2Reply.list(replies).utf8))
        case .form: return .json(replies[0].code, Array(replies[0].json.utf8))
        }
    }
}
