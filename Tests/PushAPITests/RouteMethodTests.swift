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
        func respond(to request: Request, logger: Logger) throws -> Response {
            calls += 1
            return .text(200, "ran")
        }
        var errors: any ErrorRenderer { Words() }
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
        let router = Router(routes: [
            .init("/send", handler, methods: ["POST", "PUT"], lane: { _ in .upstream }),
            .init("/any", handler),
        ])
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
}
