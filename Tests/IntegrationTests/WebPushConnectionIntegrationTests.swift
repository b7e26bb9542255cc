import Foundation
import MockUpstream
import PushCore
import PushTesting
import XCTest

/// Where `serve` may connect for a Web Push, through the real nginx and `serve`, with a
/// listening socket on loopback standing in for the operator's internal network: a listed name
/// that resolves there gets no connection attempt at all (not a SYN), an address listed with
/// one port opens no other, and a proxy named by the environment is never used.
final class WebPushConnectionIntegrationTests: XCTestCase {
    static let app = "com.example.softphone.web"
    var push: MockWebPush!
    var pushgate: PushgateInstance!
    /// The internal service a push must never reach.
    var inside: LoopbackListener!

    override func setUpWithError() throws {
        try super.setUpWithError()
        push = try MockWebPush.started()
        inside = try LoopbackListener()
    }

    override func tearDown() {
        pushgate?.stop()
        pushgate = nil
        push?.shutdown()
        push = nil
        inside = nil
        super.tearDown()
    }

    private func start(endpoints: String, _ extra: [String: String] = [:]) throws {
        var environment = PushgateInstance.upstreams(apns: nil, webPush: push)
        environment["PUSHGATE_WEBPUSH_ENDPOINTS"] = endpoints
        for (key, value) in extra { environment[key] = value }
        pushgate = try PushgateInstance(environment: environment)
        try pushgate.start()
        try pushgate.addWebApp(id: Self.app)
    }

    /// pnm2 → serve → the subscription's endpoint.
    private func send(to subscription: MockWebPushSubscription, endpoint: String? = nil) throws -> HTTPClient.Response {
        let json = MockWebPushSubscription(
            id: subscription.id, endpoint: endpoint ?? subscription.endpoint, p256dh: subscription.p256dh,
            auth: subscription.auth
        ).json
        return try pushgate.client.post(
            "/pnm2/send", contentType: "application/json",
            body:
                #"{"verb": "NotifyGenericTextMessage", "AppId": "\#(Self.app)", "DeviceToken": "\#(Base64.encode(Array(json.utf8)))", "Message": "hi"}"#
        )
    }

    /// The subscription's endpoint with the internal service's origin.
    private func elsewhere(_ subscription: MockWebPushSubscription) -> String {
        subscription.endpoint.replacingOccurrences(of: push.baseURL, with: "https://localhost:\(inside.port)")
    }

    /// The operator listed a name; its DNS (here /etc/hosts) answers a loopback address. The
    /// push is refused before a socket is opened: the listener never sees a connection.
    func testAListedNameThatResolvesInsideGetsNoConnectionAttempt() throws {
        try start(endpoints: "https://localhost:\(inside.port)")
        let subscription = try push.createSubscription()
        let response = try send(to: subscription, endpoint: elsewhere(subscription))
        XCTAssertTrue(response.text.contains("port \(inside.port), in "), response.text)
        XCTAssertTrue(response.text.contains("not connected, not sent"), response.text)
        XCTAssertFalse(inside.hasPendingConnection, "a connection reached the internal address")
    }

    /// `https://127.0.0.1:PORT` on the list opens that port of 127.0.0.1, not the address's
    /// other ports: a listed name resolving to 127.0.0.1 with another port is refused.
    func testAListedAddressOpensOnlyItsPort() throws {
        try start(endpoints: "\(push.baseURL),https://localhost:\(inside.port)")
        let subscription = try push.createSubscription()
        let refused = try send(to: subscription, endpoint: elsewhere(subscription))
        XCTAssertTrue(refused.text.contains("not connected, not sent"), refused.text)
        XCTAssertFalse(inside.hasPendingConnection, "a connection reached 127.0.0.1 on a port nobody listed")

        let delivered = try send(to: subscription)
        XCTAssertEqual(delivered.status, 200, delivered.text)
        XCTAssertEqual(push.messages(for: subscription).count, 1)
    }

    /// libcurl would take a proxy from the environment and let it resolve and connect where no
    /// address check sees. serve connects directly, whatever https_proxy or ALL_PROXY say.
    func testAProxyNamedByTheEnvironmentIsNeverUsed() throws {
        let proxy = "http://127.0.0.1:\(inside.port)"
        try start(
            endpoints: push.baseURL,
            ["https_proxy": proxy, "HTTPS_PROXY": proxy, "ALL_PROXY": proxy, "all_proxy": proxy])
        let subscription = try push.createSubscription()
        let delivered = try send(to: subscription)
        XCTAssertEqual(delivered.status, 200, delivered.text)
        XCTAssertEqual(push.messages(for: subscription).count, 1)
        XCTAssertFalse(inside.hasPendingConnection, "serve went through the environment's proxy")
        // And says so when it starts, naming the variables it ignores.
        XCTAssertTrue(
            pushgate.serveLog.contains(
                "the environment names a proxy (https_proxy, HTTPS_PROXY, all_proxy, ALL_PROXY): pushgate ignores it"),
            pushgate.serveLog)
    }
}
