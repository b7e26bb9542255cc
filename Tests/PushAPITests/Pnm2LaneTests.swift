import Foundation
import PushCore
import PushTesting
import XCTest

@testable import PushAPI

/// Which pnm2 requests wait in the upstream lane, the busy answer they get when it is full, the
/// router passing both on, and the method checked before the sender's credentials.
final class Pnm2LaneTests: XCTestCase {
    let keys = InMemorySenderKeys()

    var gateway: SenderOnly<Pnm2Gateway> {
        SenderOnly(
            Pnm2Gateway(
                apps: InMemoryTokenStore(), directory: Pnm2GatewayTests.Directory(),
                deliverer: Pnm2GatewayTests.ScriptedDeliverer(), pause: { _, _, then in then() }),
            senders: SenderAuthorization(keys: keys, digest: { String($0.reversed()) }))
    }

    private func request(_ method: String, _ path: String, headers: [String: String] = [:]) -> Request {
        Request(method: method, path: path, headers: headers, body: [], remoteAddress: "192.0.2.7")
    }

    func testOnlyPostsToTheThreeAddressesWaitInTheUpstreamLane() {
        for path in ["/pnm2/send", "/pnm2/multisend", "/pnm2", "/pnm2/send/"] {
            XCTAssertEqual(gateway.lane(for: request("POST", path)), .upstream, path)
        }
        XCTAssertNil(gateway.lane(for: request("GET", "/pnm2/send")))
        XCTAssertNil(gateway.lane(for: request("OPTIONS", "/pnm2/multisend")))
        XCTAssertNil(gateway.lane(for: request("POST", "/pnm2/other")))
    }

    func testTheBusyAnswerIsTheDocumentsServiceErrorShape() {
        let busy = gateway.busyResponse(for: request("POST", "/pnm2/multisend"))
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

    func testTheRouterAsksTheMatchingRoutesHandler() {
        let router = Router(routes: [
            .init(prefix: "/healthz", handler: HealthCheck()),
            .init(prefix: Pnm2Gateway.prefix, handler: gateway),
        ])
        XCTAssertEqual(router.lane(for: request("POST", "/pnm2/send")), .upstream)
        XCTAssertNil(router.lane(for: request("GET", "/healthz")))
        XCTAssertNil(router.lane(for: request("POST", "/elsewhere")))
        XCTAssertEqual(router.busyResponse(for: request("POST", "/pnm2/send")).status, 500)
        XCTAssertEqual(router.busyResponse(for: request("POST", "/healthz")).status, 503)
    }
}
