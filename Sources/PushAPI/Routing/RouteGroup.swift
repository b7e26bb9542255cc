/// One dialect's routes with the one renderer of their refusals and failures (a wrong method, a
/// bad path, a body too large, a fault of ours), named once for all its endpoints.
public struct RouteGroup: Sendable {
    public let routes: [Router.Route]

    public init(errors: any ErrorRenderer, _ routes: [Router.Route]) {
        self.routes = routes.map { $0.rendered(by: errors) }
    }
}
