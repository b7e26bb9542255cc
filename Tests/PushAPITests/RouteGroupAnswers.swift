import PushAPI
import PushCore

extension RouteGroup {
    /// The group's answer alone, as served: a router of its routes, logging nowhere.
    func handle(_ request: Request) -> Response {
        Router(routes: routes).handle(request)
    }
}
