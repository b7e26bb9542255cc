@testable import App
import Foundation
import PushAPI
import PushCore
import PushDelivery
import PushStore
import PushTesting
import XCTest

@testable import PushAPI

/// serve's own route table: every route takes the paths written for it and no other route
/// does, and each dialect's refusals keep its metrics label.
final class RouteTableOfServeTests: XCTestCase {
    private var folder: URL!

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("routes-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: folder)
    }

    private func router(matrixAnswers: MatrixAnswerLog = MatrixAnswerLog()) throws -> Router {
        let settings = StoreSettings(
            path: folder.appendingPathComponent("p.sqlite").path, serverURL: nil, poolSize: 1,
            busyTimeoutMilliseconds: 1000, synchronous: .normal)
        let store = try settings.backend().openStore(migrating: true, creating: true)
        var services = RouteServices(
            configuration: Configuration(), delivery: DeliveryPipeline(catalog: store, clients: [], logger: Router.silent),
            logger: Router.silent)
        services.matrixAnswers = matrixAnswers
        return Routes.router(store: store, services: services)
    }

    /// The endpoints whose handlers refused a wrong method themselves before their routes named
    /// their methods: the router answers it with the same bytes, and what the handler checked
    /// before the method (a Beams path naming no resource, a Matrix caller not listed) still
    /// comes first.
    func testAWrongMethodGetsItsDialectsAnswerAfterWhatOutranksIt() throws {
        let answers = MatrixAnswerLog()
        let router = try router(matrixAnswers: answers)
        let device = "/device_api/v1/instances/i/devices/apns"
        let id = "0c7a4b1e-0000-4000-8000-000000000000"
        func use(_ methods: String...) -> Response { BeamsError.methodNotAllowed(allowed: methods).response }
        let plain = Response.text(405, "use GET", headers: [("Allow", "GET, HEAD")])
        let cases: [(String, String, Response)] = [
            ("PATCH", device, use("POST")),
            ("PATCH", "/instances/i/devices/fcm", use("POST")),
            ("POST", "/device_api/v1/instances/i/web-vapid-public-key", use("GET")),
            ("PUT", "\(device)/\(id)", use("GET", "DELETE")),
            ("PUT", "\(device)/", use("GET", "DELETE")),
            ("DELETE", "\(device)/", .emptyOK),
            ("GET", "\(device)/", BeamsError.notFound("Could not find the device.").response),
            ("GET", "\(device)/\(id)/token", use("PUT")),
            ("POST", "\(device)/\(id)/metadata", use("PUT")),
            ("GET", "\(device)/\(id)/user", use("PUT")),
            ("POST", "\(device)/\(id)/interests", use("GET", "PUT")),
            ("PUT", "\(device)/\(id)/interests/news", use("POST", "DELETE")),
            ("PUT", "\(device)/\(id)/interests/", use("POST", "DELETE")),
            (
                "PATCH", "/device_api/v1/instances/i/devices/gcm",
                BeamsError.notFound("No such resource: the device platforms are apns, fcm and web.").response
            ),
            ("PATCH", "\(device)/bad!id/token", BeamsError.notFound("Could not find the device.").response),
            ("PATCH", "\(device)/%zz", BeamsError.invalidField("The path is not validly percent-encoded.").response),
            ("GET", "/client_api/v1/clients", use("POST")),
            ("POST", "/client_api/v1/clients/\(id)/token", use("PUT")),
            ("PUT", "/client_api/v1/clients/\(id)/interests/news", use("POST", "DELETE")),
            ("PATCH", "/client_api/v1/clients/bad!id/token", BeamsError.notFound("Client not found.").response),
            ("GET", "/publish_api/v1/instances/i/publishes", use("POST")),
            ("GET", "/publish_api/v1/instances/i/publishes/interests", use("POST")),
            ("GET", "/publish_api/v1/instances/i/publishes/users", use("POST")),
            (
                "GET", "/publish_api/v1/instances/%zz/publishes",
                BeamsError.notFound("No such resource: publish to /v1/instances/<instance id>/publishes.").response
            ),
            ("GET", "/customer_api/v1/instances/i/users/u", use("DELETE")),
            ("POST", "/user_api/v1/instances/i/users/u", use("DELETE")),
            (
                "GET", "/customer_api/v1/instances/i/users/\(String(repeating: "u", count: 165))",
                BeamsError.invalidField("The user id is longer than 164 characters.").response
            ),
            ("GET", "/_matrix/push/v1/notify", MatrixRefusal.unrecognizedMethod.response),
            ("POST", "/healthz", plain), ("PUT", "/readyz", plain), ("DELETE", "/healthz/x", plain),
            ("POST", "/metrics", plain), ("PUT", "/metrics/node/3", plain), ("DELETE", "/status", plain),
            (
                "POST", "/metrics/node/0",
                .text(404, "not found: this node's metrics are /metrics (or /metrics/node/K, which nginx sends to node K)")
            ),
        ]
        for (method, path, expected) in cases {
            XCTAssertEqual(router.handle(Request(method: method, path: path)), expected, "\(method) \(path)")
        }
        // A caller outside the homeservers learns nothing of the methods; both are noted for /status.
        XCTAssertEqual(
            router.handle(Request(method: "GET", path: "/_matrix/push/v1/notify", remoteAddress: "192.0.2.7")),
            MatrixRefusal.forbidden("192.0.2.7").response)
        XCTAssertEqual(answers.recent.map(\.status), [403, 405])
        // The operator's pages: who asks first, then (for /metrics) the path, then the method.
        let refused = Response.text(
            403, "only this machine may read this page until an operator key exists (pushgate keys add NAME --operator)")
        for path in ["/metrics", "/metrics/x", "/status"] {
            XCTAssertEqual(router.handle(Request(method: "POST", path: path, remoteAddress: "192.0.2.7")), refused, path)
        }
    }

    /// No two routes of one shape (which would match the same paths: the table refuses them
    /// at start-up), and none that the others leave nothing to.
    func testEveryRouteTakesPathsOfItsOwn() throws {
        let router = try router()
        let patterns = router.patterns
        XCTAssertEqual(Set(patterns.map(\.shape)).count, patterns.count)
        for (index, pattern) in patterns.enumerated() {
            let taken = (0...3).contains { router.match(pattern.example("a-1", tailSegments: $0)).index == index }
            XCTAssertTrue(taken, "no path goes to \(pattern)")
        }
    }

    func testTheMetricsLabelsAreTheDialectsEndpoints() throws {
        let router = try router()
        let labels: [String: String] = [
            "/token/": "/token", "/pushToken/u/s/t": "/pushToken", "/removeAccount/": "/removeAccount",
            "/pnm2/send": "/pnm2", "/pnm2/multisend/": "/pnm2", "/pnm2/other": "/pnm2",
            "/api/push": "/api/push", "/api/push/events": "/api/push/events", "/api/push/x": "/api/push",
            "/push/notifications": "/push/notifications", "/push/topics/a/b": "/push/topics",
            "/publish_api/v1/instances/i/publishes": "/publish_api",
            "/publish_api/v1/instances/i/publishes/users": "/publish_api",
            "/device_api/v1/instances/i/devices/apns": "/device_api", "/instances/i/devices/fcm": "/instances",
            "/client_api/v1/clients": "/client_api", "/customer_api/v1/instances/i/users/u": "/customer_api",
            "/user_api/v1/instances/i/users/u": "/user_api", "/metrics/node/2": "/metrics", "/healthz": "/healthz",
            "/readyz": "/readyz", "/status": "/status", "/nowhere": "none", "/token/../pnm2/send": "/token",
        ]
        for (path, label) in labels {
            XCTAssertEqual(router.match(path).endpoint, label, path)
        }
    }
}
