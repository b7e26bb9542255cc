import Foundation
import PushCore
import PushTesting
import XCTest

@testable import PushAPI

/// Which pnm2 requests wait in the upstream lane, the busy answer they get when it is full, the
/// router passing both on, and the method checked before the sender's credentials.
final class Pnm2LaneTests: XCTestCase {
    let keys = InMemorySenderKeys()

    var gateway: RouteGroup {
        let gateway = SenderOnly(
            Pnm2Gateway(
                apps: InMemoryTokenStore(), directory: Pnm2GatewayTests.Directory(),
                deliverer: Pnm2GatewayTests.ScriptedDeliverer(), subscriptions: .forDialectTests, pause: { _, _, then in then() }),
            senders: SenderAuthorization(keys: keys, digest: { String($0.reversed()) }))
        return RouteGroup(errors: Pnm2Errors(), gateway.routes)
    }

    private func request(_ method: String, _ path: String, headers: [String: String] = [:]) -> Request {
        Request(method: method, path: path, headers: headers, body: [], remoteAddress: "192.0.2.7")
    }

    var router: Router {
        Router(routes: [.init("/healthz", HealthCheck())] + gateway.routes)
    }

    private func lane(_ request: Request) -> RequestLane? {
        var head = request
        return router.route(&head)
    }

    func testOnlyPostsToTheThreeAddressesWaitInTheUpstreamLane() {
        keys.valid = ["terces": "pbx"]
        let key = ["authorization": "Bearer secret"]
        for path in ["/pnm2/send", "/pnm2/multisend", "/pnm2", "/pnm2/send/"] {
            XCTAssertEqual(lane(request("POST", path, headers: key)), .upstream, path)
        }
        XCTAssertNil(lane(request("GET", "/pnm2/send", headers: key)))
        XCTAssertNil(lane(request("GET", "/pnm2/send")))
        XCTAssertNil(lane(request("OPTIONS", "/pnm2/multisend")))
        XCTAssertNil(lane(request("POST", "/pnm2/other")))
        XCTAssertNil(lane(request("GET", "/healthz")))
        XCTAssertNil(lane(request("POST", "/elsewhere")))
    }

    /// The key is checked from the head: a POST without send rights never waits in the lane,
    /// and the check travels on the match, so that the handler does not ask the store again.
    func testOnlyASenderWithSendRightsWaitsInTheLaneAndTheCheckTravels() throws {
        keys.valid = ["terces": "pbx"]
        var keyed = request("POST", "/pnm2/send", headers: ["authorization": "Bearer secret"])
        XCTAssertEqual(router.route(&keyed), .upstream)
        XCTAssertEqual(try keyed.route?.sender?.get().name, "pbx")
        XCTAssertEqual(keys.reads, 1, "a keyed send reads its key once")
        for headers in [[:], ["authorization": "Bearer made-up"]] {
            var head = request("POST", "/pnm2/send", headers: headers)
            XCTAssertNil(router.route(&head), "\(headers)")
            guard case .failure(.unauthorized)? = head.route?.sender else {
                return XCTFail("\(headers): \(String(describing: head.route?.sender))")
            }
            XCTAssertEqual(router.handle(head).status, 401)
        }
        try keys.addSenderKey(name: "prometheus", digest: "spo", scope: .operatorOnly)
        var scrape = request("POST", "/pnm2/send", headers: ["authorization": "Bearer ops"])
        XCTAssertNil(router.route(&scrape))
        XCTAssertEqual(router.handle(scrape).status, 403)

        // Once checked, the handler reads the match: the key store is not asked again.
        let before = keys.reads
        let answered = router.handle(keyed)
        XCTAssertNotEqual(answered.status, 401, String(decoding: answered.body, as: UTF8.self))
        XCTAssertEqual(keys.reads, before, "the handler took the sender from the match")
    }

    func testTheBusyAnswerIsTheDocumentsServiceErrorShape() {
        var head = request("POST", "/pnm2/multisend")
        _ = router.route(&head)
        let busy = router.refuse(head, .busy)
        XCTAssertEqual(busy.status, 500)
        XCTAssertEqual(busy.header("Content-Type"), "application/json")
        XCTAssertEqual(busy.header("Retry-After"), "1")
        XCTAssertEqual(
            String(decoding: busy.body, as: UTF8.self),
            #"{"code": 500, "response": "Push service busy", "status": 500}"#)
    }

    func testAWrongMethodIsAnswered400BeforeTheCredentialsAreChecked() {
        keys.valid = ["terces": "pbx"]  // a key exists: a caller without one would get 401
        for method in ["OPTIONS", "GET", "PUT", "DELETE"] {
            for path in ["/pnm2/send", "/pnm2/multisend", "/pnm2"] {
                let response = gateway.handle(request(method, path))
                XCTAssertEqual(response.status, 400, "\(method) \(path)")
                XCTAssertEqual(response.header("Allow"), "POST")
                XCTAssertEqual(
                    String(decoding: response.body, as: UTF8.self),
                    #"{"code": 400, "response": "use POST", "status": 400}"#)
            }
        }
        // A POST without the key is still refused by the credentials check.
        let unauthorized = gateway.handle(request("POST", "/pnm2/send"))
        XCTAssertEqual(unauthorized.status, 401)
        XCTAssertNotNil(unauthorized.header("WWW-Authenticate"))
    }

    func testTheBusyAnswerOfARouteWithoutADialectIsPlainText() {
        var head = request("POST", "/healthz")
        _ = router.route(&head)
        XCTAssertEqual(router.refuse(head, .busy).status, 503)
    }
}
