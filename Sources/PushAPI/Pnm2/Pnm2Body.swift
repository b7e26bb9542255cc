import PushCore

/// Reads a pnm2 request body. A body the endpoint cannot read at all is refused whole (HTTP
/// 400); a list entry that is not a proper push object gets its own code 400.
enum Pnm2Body {
    /// `/pnm2/send`: one object.
    static func single(_ request: Request) throws(Pnm2Reply) -> Result<Pnm2Push, Pnm2Reply> {
        guard case .object(let object) = try document(request) else {
            throw Pnm2Reply.badObject("the body must be a JSON object (use /pnm2/multisend for a list)")
        }
        return entry(.object(object))
    }

    /// `/pnm2/multisend`: a list, or one object taken as a one-element list.
    static func list(_ request: Request, limit: Int) throws(Pnm2Reply) -> [Result<Pnm2Push, Pnm2Reply>] {
        switch try document(request) {
        case .array(let items):
            guard items.count <= limit else {
                throw Pnm2Reply.badObject("at most \(limit) pushes per request (\(items.count) sent)")
            }
            return items.map(entry)
        case .object(let object):
            return [entry(.object(object))]
        default:
            throw Pnm2Reply.badObject("the body must be a JSON list of push objects, or one object")
        }
    }

    /// `/pnm2`, the old service: form fields; any missing required field is HTTP 400.
    static func form(_ request: Request) throws(Pnm2Reply) -> Pnm2Push {
        guard request.mediaType == "application/x-www-form-urlencoded" else {
            throw Pnm2Reply.badObject("Content-Type must be application/x-www-form-urlencoded (or POST JSON to /pnm2/send)")
        }
        guard let text = String(validating: request.body, as: UTF8.self) else {
            throw Pnm2Reply.badObject("the body is not valid UTF-8")
        }
        do {
            return try Pnm2PushFields(try FormParameters.parse(text)).push()
        } catch let error as Pnm2Reply {
            throw error
        } catch {
            throw Pnm2Reply.badObject("the body is not valid form encoding")
        }
    }

    private static func entry(_ value: JSONValue) -> Result<Pnm2Push, Pnm2Reply> {
        guard case .object(let object) = value else { return .failure(.badObject()) }
        do {
            return .success(try Pnm2PushFields(object).push())
        } catch {
            return .failure(error)
        }
    }

    private static func document(_ request: Request) throws(Pnm2Reply) -> JSONValue {
        guard request.mediaType == "application/json" else {
            throw Pnm2Reply.badObject("Content-Type must be application/json")
        }
        do {
            return try JSONValue.parse(request.body)
        } catch .invalidUTF8 {
            throw Pnm2Reply.badObject("the body is not valid UTF-8")
        } catch .tooDeep {
            throw Pnm2Reply.badObject("the body is nested deeper than \(JSONNesting.maximumDepth) levels")
        } catch {
            throw Pnm2Reply.badObject("the body is not valid JSON")
        }
    }
}
