/// One dialect's routes put together with the one renderer of its refusals and failures: the
/// method it does not serve, a path nginx would read otherwise, a body too large, a fault of
/// ours. Named once here for all its endpoints, which only throw.
public struct RouteGroup: Sendable {
    public let routes: [Router.Route]

    public init(errors: any ErrorRenderer, _ routes: [Router.Route]) {
        self.routes = routes.map { $0.rendered(by: errors) }
    }
}
