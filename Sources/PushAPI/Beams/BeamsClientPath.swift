import PushCore

/// Which resource of the Beams client API a path names.
enum BeamsClientPath: Equatable {
    /// `/v1/clients`
    case clients
    /// `/v1/clients/:client_id/token`
    case token(clientID: String)
    /// `/v1/clients/:client_id/interests/:interest_name` (the name percent-decoded, unchecked).
    case interest(clientID: String, name: String)

    /// The client API's routes under `prefix`, answered by `handler`, which reads the resource
    /// back from the parameters the route took: none for `/v1/clients`, `{client}` alone for
    /// its token, with `{interest}` for an interest. What names no resource is refused.
    static func routes(prefix: String, _ handler: any DialectHandler) -> [Router.Route] {
        let clients = prefix + "/v1/clients"
        let interest = clients + "/{client}/interests/{interest}"
        let resources = [(clients, ["POST"]), (clients + "/{client}/token", ["PUT"]), (interest, ["POST", "DELETE"])]
        return resources.map { .init($0, handler, endpoint: prefix, methods: $1) } + [
            .init(clients + "/{path...}", unknown("No such resource."), endpoint: prefix),
            .init(prefix + "/{path...}", unknown("No such resource: the client API serves /v1/clients.")),
        ]
    }

    private static func unknown(_ description: String) -> UnknownPath {
        UnknownPath { _ in throw BeamsError.notFound(description) }
    }

    /// The resource of the route the request matched (see `routes`).
    init(_ parameters: RouteParameters) throws(BeamsError) {
        guard let client = parameters["client"] else {
            self = .clients
            return
        }
        guard parameters["interest"] != nil else {
            self = .token(clientID: try Self.clientID(String(client)))
            return
        }
        guard let name = parameters.decoded("interest") else {
            throw .invalidField("The interest name is not validly percent-encoded.")
        }
        self = .interest(clientID: try Self.clientID(String(client)), name: name)
    }

    /// Ids this server issues are UUIDs; anything that could not be one is simply unknown.
    private static func clientID(_ segment: String) throws(BeamsError) -> String {
        guard RandomIdentifier.couldBeIssued(segment) else { throw .notFound("Client not found.") }
        return segment
    }
}
