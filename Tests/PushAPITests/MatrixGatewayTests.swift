import Logging
import PushCore
import PushTesting
import XCTest

@testable import PushAPI

/// The notify in process: what each upstream result makes of the answer, the push services
/// not allowed, the caller's address, and the answers `/status` shows.
final class MatrixGatewayTests: XCTestCase {
    struct NoStoredDevices: AcrobitsPushDirectory {
        func storedDevices(_ keys: [(appID: AppID, token: DeviceToken)]) throws -> [AddressedDevice?] {
            keys.map { _ in nil }
        }
        func accountDevices(selector: String) throws -> [AcrobitsChannel: AddressedDevice] { [:] }
    }

    /// Answers each push with the next scripted result (then `delivered`), recording the pushes.
    final class Upstream: Deliverer, @unchecked Sendable {
        var results: [DeliveryResult] = []
        var sent: [PushCore.Notification] = []
        func deliver(_ batch: [PushCore.Notification]) -> [DeliveryResult] {
            sent += batch
            return batch.map { _ in results.isEmpty ? .delivered(id: nil) : results.removeFirst() }
        }
    }

    let store = InMemoryTokenStore()
    let upstream = Upstream()
    let answers = MatrixAnswerLog()
    /// The one key the test's point check takes as on the curve.
    static let p256dh = [UInt8(4)] + [UInt8](repeating: 7, count: 64)
    let apnsKey = DeviceToken.fromHex(String(repeating: "ab", count: 32))!.base64

    override func setUpWithError() throws {
        try store.addApp(
            RegisteredApp(
                id: AppID("im.example.ios")!, credentials: .apnsToken(teamID: "T", keyID: "K", privateKeyPEM: "-"),
                apnsTopic: "im.example", apnsPushType: .alert, openToMatrix: true),
            replacing: false)
        try store.addApp(
            RegisteredApp(
                id: AppID("im.example.web")!, credentials: .webPush(vapidPrivateKeyPEM: "-", subject: "mailto:a@b"),
                openToMatrix: true),
            replacing: false)
    }

    private var gateway: MatrixGateway {
        MatrixGateway(
            apps: store, directory: NoStoredDevices(), deliverer: upstream,
            webPushSubscriptions: WebPushSubscriptionCheck(
                endpoints: .publicPushServices, isP256Point: { $0 == MatrixGatewayTests.p256dh }),
            homeservers: try! MatrixHomeservers(listing: "127.0.0.1,10.0.0.0/8"), answers: answers)
    }

    /// The gateway's routes as served: in the Matrix group, with its renderer.
    private var group: RouteGroup { RouteGroup(errors: MatrixErrors(answers: answers), gateway.routes) }

    private func request(_ devices: String, from address: String) -> Request {
        let body = #"{"notification": {"event_id": "$e", "room_id": "!r:x", "type": "m.room.message", "devices": [\#(devices)]}}"#
        return Request(
            method: "POST", path: "/_matrix/push/v1/notify", headers: ["content-type": "application/json"],
            body: Array(body.utf8), remoteAddress: address)
    }

    private func notify(_ devices: String, from address: String = "127.0.0.1") -> Response {
        group.handle(request(devices, from: address)).settled()
    }

    private var ios: String { #"{"app_id": "im.example.ios", "pushkey": "\#(apnsKey)"}"# }

    func testEachUpstreamResultAsTheHomeserverIsTold() throws {
        upstream.results = [.deadToken(reason: "Unregistered", since: nil)]
        XCTAssertEqual(String(decoding: notify(ios).body, as: UTF8.self), #"{"rejected":["\#(apnsKey)"]}"#)
        upstream.results = [.rejected(status: 400, reason: "TopicDisallowed")]
        XCTAssertEqual(String(decoding: notify(ios).body, as: UTF8.self), #"{"rejected":["\#(apnsKey)"]}"#)
        upstream.results = [.rejected(status: 403, reason: "InvalidProviderToken")]
        XCTAssertEqual(notify(ios).status, 502)
        upstream.results = [.retryLater(reason: "ServiceUnavailable", afterSeconds: nil)]
        XCTAssertEqual(notify(ios).status, 502)
        XCTAssertEqual(String(decoding: notify(ios).body, as: UTF8.self), #"{"rejected":[]}"#)
        XCTAssertEqual(answers.recent.map(\.status), [200, 502, 502, 200, 200])
        XCTAssertEqual(answers.recent.last?.note, "the upstream reports the token dead: Unregistered")
    }

    func testASubscriptionToAPushServiceNotAllowedIsNeitherSentNorRejected() {
        let p256dh = Base64.encodeURLSafe([4] + [UInt8](repeating: 7, count: 64))
        let auth = Base64.encodeURLSafe([UInt8](repeating: 9, count: 16))
        let response = notify(
            #"{"app_id": "im.example.web", "pushkey": "\#(p256dh)", "data": {"endpoint": "https://push.elsewhere.example/s/1", "auth": "\#(auth)"}}"#)
        XCTAssertEqual(String(decoding: response.body, as: UTF8.self), #"{"rejected":[]}"#)
        XCTAssertTrue(upstream.sent.isEmpty)

        // On a listed push service, a key off the curve can never work: rejected.
        let offCurve = Base64.encodeURLSafe([4] + [UInt8](repeating: 8, count: 64))
        let rejected = notify(
            #"{"app_id": "im.example.web", "pushkey": "\#(offCurve)", "data": {"endpoint": "https://fcm.googleapis.com/fcm/send/x", "auth": "\#(auth)"}}"#)
        XCTAssertEqual(String(decoding: rejected.body, as: UTF8.self), #"{"rejected":["\#(offCurve)"]}"#)
        XCTAssertTrue(upstream.sent.isEmpty)
    }

    /// The apps and the subscription the notify read go out with its pushes, so that delivery
    /// reads neither again.
    func testEachPushCarriesItsAppAndAWebPushOneItsSubscription() throws {
        let auth = [UInt8](repeating: 9, count: 16)
        let endpoint = "https://fcm.googleapis.com/fcm/send/x"
        let web =
            #"{"app_id": "im.example.web", "pushkey": "\#(Base64.encodeURLSafe(Self.p256dh))", "data": {"endpoint": "\#(endpoint)", "auth": "\#(Base64.encodeURLSafe(auth))"}}"#
        XCTAssertEqual(String(decoding: notify(ios + ", " + web).body, as: UTF8.self), #"{"rejected":[]}"#)
        XCTAssertEqual(
            upstream.sent.map(\.app),
            [try store.app(id: AppID("im.example.ios")!), try store.app(id: AppID("im.example.web")!)])
        XCTAssertNil(upstream.sent[0].subscription)
        let subscription = try XCTUnwrap(upstream.sent[1].subscription)
        XCTAssertEqual(subscription.endpoint.url, endpoint)
        XCTAssertEqual(subscription.p256dh, Self.p256dh)
        XCTAssertEqual(subscription.auth, auth)
        XCTAssertEqual(upstream.sent[1].token, subscription.token)
    }

    func testOnlyListedHomeserversMayCall() {
        XCTAssertEqual(notify(ios, from: "10.1.2.3").status, 200)
        let refused = notify(ios, from: "192.0.2.7")
        XCTAssertEqual(refused.status, 403)
        XCTAssertEqual(upstream.sent.count, 1, "nothing sent for the refused caller")
        XCTAssertEqual(answers.recent.first?.status, 403)
    }

    /// The address is checked once, from the head, to choose the lane: the decision travels on
    /// the match, and the handler reads it there instead of judging the address again.
    func testTheCallersCheckIsMadeOnceAndTravelsOnTheMatch() {
        let router = Router(routes: group.routes)
        var listed = request(ios, from: "10.1.2.3")
        XCTAssertEqual(router.route(&listed), .matrix)
        XCTAssertEqual(listed.route?.addressAllowed, true)
        var unlisted = request(ios, from: "192.0.2.7")
        XCTAssertNil(router.route(&unlisted))
        XCTAssertEqual(unlisted.route?.addressAllowed, false)
        // Addresses swapped after the check (made up here): the match decides, not the address.
        (listed.remoteAddress, unlisted.remoteAddress) = (unlisted.remoteAddress, listed.remoteAddress)
        XCTAssertEqual(router.handle(listed).settled().status, 200)
        XCTAssertEqual(router.handle(unlisted).settled().status, 403)
        XCTAssertEqual(upstream.sent.count, 1, "nothing sent for the refused caller")
        XCTAssertEqual(answers.recent.map(\.status), [403, 200], "each answer noted once")
    }
}
