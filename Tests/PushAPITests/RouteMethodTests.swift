import Logging
import PushAPI
import PushCore
import PushTesting
import XCTest

/// A route names the methods it serves; the router answers any other from the one place, in
/// the words of the route's dialect, before the handler or a lane.
final class RouteMethodTests: XCTestCase {
    /// Counts the requests that reached it: a refused method must not.
    final class Counting: DialectHandler, @unchecked Sendable {
        var calls = 0
        func respond(to request: Request, context: RequestContext) throws -> Response {
            calls += 1
            return .text(200, "ran")
        }
    }

    struct Words: ErrorRenderer {
        func badPath(_ reason: String) -> Response { .text(400, reason) }
        func bodyTooLarge(bytes: Int, limit: Int) -> Response { .text(413, "large") }
        func failure(_ failure: ServiceFailure) -> Response { .text(failure.status, failure.message) }
        func methodNotAllowed(_ method: String, allowed: [String]) -> Response {
            .text(405, "words: \(method), not \(allowed.joined(separator: "+"))", headers: [("Allow", "x")])
        }
    }

    func testAWrongMethodIsAnsweredByTheRoutesRendererAndNeverReachesTheHandler() {
        let handler = Counting()
        let router = Router(
            routes: RouteGroup(
                errors: Words(),
                [.init("/send", handler, methods: ["POST", "PUT"], lane: { _ in .upstream }), .init("/any", handler)]
            ).routes)
        var head = Request(method: "GET", path: "/send")
        XCTAssertNil(router.route(&head), "a wrong method waits in no lane")
        XCTAssertEqual(
            router.handle(head), .text(405, "words: GET, not POST+PUT", headers: [("Allow", "x")]))
        XCTAssertEqual(handler.calls, 0)

        var post = Request(method: "POST", path: "/send")
        XCTAssertEqual(router.route(&post), .upstream)
        XCTAssertEqual(router.handle(post), .text(200, "ran"))
        XCTAssertEqual(router.handle(Request(method: "DELETE", path: "/any")), .text(200, "ran"))
        XCTAssertEqual(handler.calls, 2)
    }

    /// The handler reads the router's match from its context, never an optional: its label and
    /// the parameters its route took, as sent.
    func testAHandlerGetsTheMatchInItsContext() {
        struct Echo: DialectHandler {
            func respond(to request: Request, context: RequestContext) throws -> Response {
                .text(200, "\(context.match.endpoint) \(context.parameters["name"] ?? "-")")
            }
        }
        let router = Router(routes: [.init("/hello/{name}", Echo(), endpoint: "/hi", methods: ["GET"])])
        XCTAssertEqual(router.handle(Request(method: "GET", path: "/hello/a%20b")), .text(200, "/hi a%20b"))
    }

    /// Every dialect route that names its methods, with what a PUT gets: the bytes each
    /// handler answered before the route carried its methods. Routes that name none (an
    /// unknown path, refused alike whatever the method) are listed with nil.
    func testEachRouteListsItsMethodsAndItsWrongMethodAnswer() {
        let tokens = InMemoryTokenStore()
        let cospace = CospaceMemoryStore()
        let senders = SenderAuthorization(keys: InMemorySenderKeys(), digest: { $0 })
        let noApps = BridgeApps(apns: nil, fcm: nil)
        let groups = [
            RouteGroup(
                errors: ReporterErrors(),
                TokenReporter(apps: tokens, accounts: tokens, subscriptions: .forDialectTests).routes
                    + AccountRemovalReporter(accounts: tokens).routes),
            RouteGroup(
                errors: CospaceErrors(),
                PushRegistrations(
                    users: cospace, authenticator: CospaceAuthenticator(users: cospace) { _, p, s in p == s },
                    senderID: nil, fcmApp: nil
                ).routes
                    + SenderOnly(
                        PushEvents(publisher: CospaceEventPublisher(users: cospace, outbox: cospace)), senders: senders
                    ).routes),
            RouteGroup(
                errors: BridgeErrors(),
                NotificationBridge(apps: tokens, subscriptions: FakeBridgeStore(), bridgeApps: noApps).routes
                    + SenderOnly(TopicPublisher(subscriptions: FakeBridgeStore(), bridgeApps: noApps), senders: senders)
                    .routes),
            RouteGroup(
                errors: Pnm2Errors(),
                SenderOnly(
                    Pnm2Gateway(
                        apps: tokens, directory: Pnm2GatewayTests.Directory(),
                        deliverer: Pnm2GatewayTests.ScriptedDeliverer(), subscriptions: .forDialectTests),
                    senders: senders
                ).routes),
        ]
        let routes = groups.flatMap(\.routes)

        let reporter = Response.text(
            405, "method PUT not allowed: use GET or POST", headers: [("Allow", "GET, POST")])
        func json(_ status: Int, _ body: String, allow: String) -> Response {
            .json(status, Array(body.utf8), headers: [("Allow", allow)])
        }
        let bridge = json(405, #"{"response":{"error":"method PUT not allowed: use POST"}}"#, allow: "POST")
        let pnm2 = json(400, #"{"code": 400, "response": "use POST", "status": 400}"#, allow: "POST")
        let expected: [String: (methods: [String], answer: Response)?] = [
            "/token/?": (["GET", "POST"], reporter),
            "/token/{username}/?": (["GET", "POST"], reporter),
            "/token/{path...}": (["GET", "POST"], reporter),
            "/pushToken/{username}/{selector}/{token...}": (["GET", "POST"], reporter),
            "/pushToken/{path...}": (["GET", "POST"], reporter),
            "/removeAccount/?": (["GET", "POST"], reporter),
            "/removeAccount/{username}/?": (["GET", "POST"], reporter),
            "/removeAccount/{path...}": (["GET", "POST"], reporter),
            "/api/push/?": (["GET", "POST"], json(405, #"{"status":"method-not-allowed"}"#, allow: "GET, POST")),
            "/api/push/{path...}": nil,
            "/api/push/events/?": (["POST"], json(405, #"{"status":"method-not-allowed"}"#, allow: "POST")),
            "/push/notifications/?": (["POST"], bridge),
            "/push/notifications/{path...}": nil,
            "/push/topics/{topic...}": (["POST"], bridge),
            "/pnm2/?": (["POST"], pnm2),
            "/pnm2/send/?": (["POST"], pnm2),
            "/pnm2/multisend/?": (["POST"], pnm2),
            "/pnm2/{path...}": nil,
        ]
        XCTAssertEqual(Set(routes.map(\.pattern.description)), Set(expected.keys))
        for route in routes {
            let pattern = route.pattern.description
            guard let listed = expected[pattern] else { continue }
            XCTAssertEqual(route.methods, listed?.methods, pattern)
            XCTAssertEqual(route.refusal(ofMethod: "PUT"), listed?.answer, pattern)
            for method in route.methods ?? [] {
                XCTAssertNil(route.refusal(ofMethod: method), "\(method) \(pattern)")
            }
        }
    }
}
