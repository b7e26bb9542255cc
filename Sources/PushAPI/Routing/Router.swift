import Logging
import PushCore

/// Matches each request to its route once, from the head (`route`), and answers it with that
/// route's handler; what the handler throws, and what the edge refuses, becomes the response
/// through the renderer of the route's dialect.
public struct Router: RequestHandler {
    /// One endpoint: the paths it serves, its handler, and what the router reads from it. A
    /// class: every request takes its route out of the table, and a struct of five existentials
    /// was copied (retained and released field by field) each time.
    public final class Route: Sendable {
        public let pattern: RoutePattern
        /// The metrics label of the route (see `RouteMatch.endpoint`).
        public let endpoint: String
        let handler: any RequestHandler
        /// The handler as a dialect, found once here rather than on every request.
        let dialect: (any DialectHandler)?
        /// Its group's renderer (`RouteGroup`); plain text outside any group (operator endpoints).
        let errors: any ErrorRenderer
        /// The lane of a request from its head; nil: none. It may note on the head's match
        /// what it read to choose (`RouteMatch.sender`).
        let lane: Lane?
        /// Where the `{tail...}` is a value rather than names (a base64 token that may hold `/`),
        /// the index of the last segment before it, after which `RequestPathCheck` reads the path
        /// as such; nil: no such tail.
        let opaqueTailAfter: Int?
        /// The methods the route serves, in the order its refusal names them; nil: its handler
        /// reads any method (a dialect's `{path...}` refuses every one alike). Another method
        /// is answered by the router through `errors`, and never reaches the handler.
        public let methods: [String]?

        /// - Parameters:
        ///   - endpoint: the metrics label; unless given, the pattern's literal segments before
        ///     its first parameter or tail (`/token/{path...}` is `/token`).
        ///   - methods: the methods the route serves (see `methods`); nil: any.
        ///   - lane: which lane, if any, a request of this route waits in, from its head alone.
        ///   - errors: set by the route's group (see `RouteGroup`).
        public init(
            _ pattern: String, _ handler: any RequestHandler, endpoint: String? = nil, opaqueTail: Bool = false,
            methods: [String]? = nil, lane: Lane? = nil, errors: any ErrorRenderer = PlainErrors()
        ) {
            self.pattern = RoutePattern(pattern)
            self.endpoint = endpoint ?? self.pattern.literalPrefix
            self.handler = handler
            dialect = handler as? any DialectHandler
            self.errors = errors
            self.lane = lane
            self.methods = methods
            opaqueTailAfter = opaqueTail ? self.pattern.segmentsBeforeTail.map { $0 - 1 } : nil
        }

        /// The same route answered by `handler` (an endpoint's routes, served behind a wrapper
        /// such as `SenderOnly`), its lane chosen by `lane` when given, from the lane this
        /// route would choose.
        public func answered(
            by handler: any DialectHandler,
            lane wrapping: (@Sendable (_ head: inout Request, _ own: RequestLane) -> RequestLane?)? = nil
        ) -> Route {
            var lane = self.lane
            if let own = lane, let wrapping {
                lane = { head in own(&head).flatMap { wrapping(&head, $0) } }
            }
            return copy(handler: handler, lane: lane, errors: errors)
        }

        /// The same route, its refusals and failures worded by `errors` (its group's).
        func rendered(by errors: any ErrorRenderer) -> Route {
            copy(handler: handler, lane: lane, errors: errors)
        }

        /// This route's pattern, label, tail and methods with another handler, lane or renderer.
        private func copy(handler: any RequestHandler, lane: Lane?, errors: any ErrorRenderer) -> Route {
            Route(
                pattern.description, handler, endpoint: endpoint, opaqueTail: opaqueTailAfter != nil, methods: methods,
                lane: lane, errors: errors)
        }

        /// The dialect's answer to `method` when the route does not serve it; nil when it does.
        public func refusal(ofMethod method: String) -> Response? {
            guard let methods, !methods.contains(method) else { return nil }
            return errors.methodNotAllowed(method, allowed: methods)
        }

        /// Which lane a request waits in, from its head; `head.route` is already its match.
        public typealias Lane = @Sendable (_ head: inout Request) -> RequestLane?
    }

    private let routes: [Route]
    private let table: RouteTable
    private let logger: Logger
    private let pathCheck = RequestPathCheck()

    /// - Parameter logger: what each request's logger is made from, with its id added.
    public init(routes: [Route], logger: Logger = Router.silent) {
        self.routes = routes
        table = RouteTable(routes.map(\.pattern))
        self.logger = logger
    }

    /// A logger that writes nowhere, for handlers driven without a server (tests).
    public static let silent = Logger(label: "pushgate", factory: { _ in SwiftLogNoOpLogHandler() })

    public func route(_ head: inout Request) -> RequestLane? {
        let match = match(head.path)
        let (refused, index) = (match.pathRefusal != nil, match.index)
        head.route = consume match
        // A refused path or method is answered where it was read, whichever lane its route has.
        guard !refused, let index, routes[index].methods?.contains(head.method) != false, let lane = routes[index].lane
        else { return nil }
        let chosen = lane(&head)
        head.route?.lane = chosen
        return chosen
    }

    /// Every route's pattern, in the order given (which decides nothing: see `RouteTable`).
    public var patterns: [RoutePattern] { routes.map(\.pattern) }

    /// The route of `path`, and the refusal of the path itself where nginx would read it
    /// otherwise: then in the shape of the dialect the caller meant, the route of the raw path
    /// or else of the path nginx made of it.
    public func match(_ path: String) -> RouteMatch {
        let found = table.match(path)
        let route = found.map { routes[$0.index] }
        if let refusal = pathCheck.refusal(path, opaqueTailAfter: route?.opaqueTailAfter) {
            let meant = found?.index ?? table.match(pathCheck.normalised(path))?.index
            return RouteMatch(
                index: meant, endpoint: route?.endpoint ?? "none", pathRefusal: refusal.description)
        }
        guard let found, let route else { return .none }
        return RouteMatch(index: found.index, endpoint: route.endpoint, parameters: found.parameters)
    }

    public func handle(_ request: Request) -> Response {
        guard let match = request.route else {
            // Driven without the edge (tests). Copied only here: a request is a dozen references.
            var routed = request
            _ = route(&routed)
            return handle(routed)
        }
        if let reason = match.pathRefusal {
            return errors(of: match).badPath(reason).noted("path refused: \(reason)")
        }
        guard let index = match.index else { return .text(404, "no endpoint at \(request.path)") }
        let route = routes[index]
        guard let dialect = route.dialect else {
            return route.refusal(ofMethod: request.method) ?? route.handler.handle(request)
        }
        let context = RequestContext(match: consume match, logger: logger(for: request))
        return Self.answer(request, on: route, with: dialect, context: context)
    }

    public func refuse(_ head: Request, _ refusal: EdgeRefusal) -> Response {
        errors(of: head.route ?? match(head.path)).response(to: refusal)
    }

    private func errors(of match: RouteMatch) -> any ErrorRenderer {
        match.index.map { routes[$0].errors } ?? PlainErrors()
    }

    /// The request's logger: every line it causes (a pruned device, an upstream's refusal, a
    /// retry) carries its id, which is nginx's `$request_id` behind the shipped template.
    public func logger(for request: Request) -> Logger {
        var logger = self.logger
        logger[metadataKey: "request-id"] = .string(request.id)
        return logger
    }

    /// The one place a dialect's thrown error becomes its response, in the route's shape. A
    /// method outside the route's never reaches `respond`; `checkAddress` is asked only then.
    private static func answer(
        _ request: Request, on route: Route, with handler: some DialectHandler, context: RequestContext
    ) -> Response {
        do {
            if let methods = route.methods, !methods.contains(request.method) {
                try handler.checkAddress(request, context: context)
                return route.errors.methodNotAllowed(request.method, allowed: methods)
            }
            return try handler.respond(to: request, context: context)
        } catch {
            return route.errors.response(to: error)
        }
    }
}
