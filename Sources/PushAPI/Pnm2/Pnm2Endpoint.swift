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
}
