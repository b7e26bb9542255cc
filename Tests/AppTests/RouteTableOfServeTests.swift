@testable import App
import Foundation
import PushAPI
import PushCore
import PushDelivery
import PushStore
import PushTesting
import XCTest

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

    private func router() throws -> Router {
        let settings = StoreSettings(
            path: folder.appendingPathComponent("p.sqlite").path, serverURL: nil, poolSize: 1,
            busyTimeoutMilliseconds: 1000, synchronous: .normal)
        let store = try settings.backend().openStore(migrating: true, creating: true)
        return Routes.router(
            store: store,
            services: RouteServices(
                configuration: Configuration(), delivery: DeliveryPipeline(catalog: store, clients: [], logger: Router.silent),
                logger: Router.silent))
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
