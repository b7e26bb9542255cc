import Logging
import PushAPI
import PushCore
import XCTest

/// Paths that nginx would normalise are refused; every path it would keep as it is passes.
final class RequestPathCheckTests: XCTestCase {
    let check = RequestPathCheck()

    func testDotSegmentsAreRefusedLiteralOrEncoded() {
        XCTAssertEqual(check.refusal("/token/.."), .dotSegment)
        XCTAssertEqual(check.refusal("/token/./"), .dotSegment)
        XCTAssertEqual(check.refusal("/./pnm2/send"), .dotSegment)
        XCTAssertEqual(check.refusal("/removeAccount/.."), .dotSegment)
        XCTAssertEqual(check.refusal("/pushToken/../x/y/z", opaqueTailAfter: 2), .dotSegment)
        XCTAssertEqual(check.refusal("/token/%2e%2e/"), .encodedDot)
        XCTAssertEqual(check.refusal("/token/.%2E/"), .encodedDot)
        XCTAssertEqual(check.refusal("/token/%2E"), .encodedDot)
    }

    func testEmptySegmentsAndEncodedSlashesAreRefused() {
        XCTAssertEqual(check.refusal("//token/"), .emptySegment)
        XCTAssertEqual(check.refusal("/api//push"), .emptySegment)
        XCTAssertEqual(check.refusal("/token%2F..%2Fpnm2/send"), .encodedSlash)
        XCTAssertEqual(check.refusal("/client_api/v1/clients/a%2fb/token"), .encodedSlash)
    }

    /// nginx ends `$uri` at a raw "#": it would choose the location of what comes before it.
    func testARawNumberSignIsRefusedAnywhere() {
        XCTAssertEqual(check.refusal("/device_api/v1/instances/x#/devices/fcm"), .numberSign)
        XCTAssertEqual(check.refusal("/pnm2/send#"), .numberSign)
        XCTAssertEqual(check.refusal("/pushToken/alice/sel/abc#def", opaqueTailAfter: 2), .numberSign)
        XCTAssertNil(check.refusal("/token/alice%23bob/"), "encoded, it is a character of the name")
    }

    func testPathsNginxKeepsPass() {
        for path in [
            "/", "/healthz", "/token/", "/token/alice/", "/token/john.doe/", "/api/push", "/api/push/",
            "/client_api/v1/clients/6f1c0d2e-1a2b-4c3d-8e9f-0a1b2c3d4e5f/interests/a%20b",
            "/pnm2/send", "/token/...", "/token/.hidden", "/token/a..b", "/token/%41",
        ] {
            XCTAssertNil(check.refusal(path), path)
        }
    }

    /// A base64 token may hold `/`, `//` and `%2F`: in the token tail they pass, a climbing
    /// `..` (plain or between encoded slashes) does not.
    func testTheOpaqueTailKeepsSlashesButNotDotSegments() {
        XCTAssertNil(check.refusal("/pushToken/alice/sel/ab//cd+ef==&appid=com.example", opaqueTailAfter: 2))
        XCTAssertNil(check.refusal("/pushToken/alice/sel/ab%2Fcd%2F%2Fef=&appid=x", opaqueTailAfter: 2))
        XCTAssertNil(
            check.refusal("/pushToken/alice/sel//abcd==&appid=x", opaqueTailAfter: 2), "a token beginning with /")
        XCTAssertEqual(check.refusal("/pushToken/alice/sel/ab/../../..", opaqueTailAfter: 2), .dotSegment)
        XCTAssertEqual(check.refusal("/pushToken/alice/sel/ab%2F..%2F..", opaqueTailAfter: 2), .dotSegment)
        XCTAssertEqual(check.refusal("/pushToken/alice/sel/%2e%2e", opaqueTailAfter: 2), .encodedDot)
        // Before the tail the usual rules hold.
        XCTAssertEqual(check.refusal("/pushToken//alice/sel/tok", opaqueTailAfter: 2), .emptySegment)
        XCTAssertEqual(check.refusal("/pushToken/alice//sel/tok", opaqueTailAfter: 2), .emptySegment)
        XCTAssertEqual(check.refusal("/pushToken/al%2Fice/sel/tok", opaqueTailAfter: 2), .encodedSlash)
        // Without the tail rule the same token is refused.
        XCTAssertEqual(check.refusal("/pushToken/alice/sel/ab//cd"), .emptySegment)
    }

    func testNormalisedIsNginxsReading() {
        XCTAssertEqual(check.normalised("/token/.."), "/")
        XCTAssertEqual(check.normalised("/./pnm2//send"), "/pnm2/send")
        XCTAssertEqual(check.normalised("/token%2F..%2Fpnm2/send"), "/pnm2/send")
        XCTAssertEqual(check.normalised("/x/%2e%2e/api/push"), "/api/push")
    }

    /// Through the router: 400 in the shape of the dialect the raw path names, else the one
    /// nginx's reading names, and the handler never runs.
    func testTheRouterRefusesInTheDialectsShape() {
        let reporter = RouteGroup(
            errors: Shape(name: "reporter"),
            [
                .init("/token/{path...}", Refusing()),
                .init("/pushToken/{username}/{selector}/{token...}", Refusing(), opaqueTail: true),
            ])
        let router = Router(
            routes: reporter.routes + RouteGroup(errors: Shape(name: "pnm2"), [.init("/pnm2/{path...}", Refusing())]).routes)
        let dotted = router.handle(Request(method: "GET", target: "/token/..?selector=x"))
        XCTAssertEqual(dotted.status, 400)
        XCTAssertEqual(
            String(decoding: dotted.body, as: UTF8.self), "reporter: \(RequestPathCheck.Refusal.dotSegment)\n")
        let climbing = router.handle(Request(method: "POST", target: "/x/../pnm2/send"))
        XCTAssertEqual(climbing.status, 400)
        XCTAssertTrue(String(decoding: climbing.body, as: UTF8.self).hasPrefix("pnm2: "))
        let nowhere = router.handle(Request(method: "GET", target: "/x/../y"))
        XCTAssertEqual(nowhere.status, 400)
        let token = router.handle(Request(method: "GET", target: "/pushToken/a/s/ab//cd"))
        XCTAssertEqual(token.status, 299, "the handler answered")
    }

    /// Answers 299 when it runs; its group renders a 400 with its shape's name.
    struct Refusing: DialectHandler {
        func respond(to request: Request, context: RequestContext) throws -> Response { .text(299, "ran") }
    }

    struct Shape: ErrorRenderer {
        let name: String
        func badPath(_ reason: String) -> Response { .text(400, "\(name): \(reason)") }
        func bodyTooLarge(bytes: Int, limit: Int) -> Response { .text(413, name) }
        func failure(_ failure: ServiceFailure) -> Response { .text(failure.status, failure.message) }
        func methodNotAllowed(_ method: String, allowed: [String]) -> Response { .text(405, name) }
    }
}
