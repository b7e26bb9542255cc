import Foundation
import PushAPI
import PushCore
import PushTesting
import XCTest

/// The scope decision: which apps and dialects a key reaches, what a request naming others
/// gets, and who reads the operator pages.
final class SenderScopeTests: XCTestCase {
    let a = AppID("com.example.a")!
    let b = AppID("com.example.b")!
    let keys = InMemorySenderKeys()

    func testAScopeWithoutAppsOrDialectsReachesEverything() {
        XCTAssertTrue(SenderScope.unrestricted.allows(a))
        XCTAssertTrue(SenderScope.unrestricted.allows(.beams))
        XCTAssertFalse(SenderScope.unrestricted.isOperator)
        XCTAssertEqual(SenderScope.unrestricted.outside([a, b]), [])
    }

    func testAScopedKeyReachesOnlyItsAppsAndDialects() {
        let scope = SenderScope(apps: [a], dialects: [.pnm2, .bridge])
        XCTAssertTrue(scope.allows(a))
        XCTAssertFalse(scope.allows(b))
        XCTAssertTrue(scope.allows(.pnm2))
        XCTAssertFalse(scope.allows(.cospace))
        XCTAssertFalse(scope.allows(.beams))
        XCTAssertEqual(scope.outside([b, a, b]), [b], "each app outside once, in order")
        XCTAssertFalse(SenderScope(apps: []).allows(a), "an empty list reaches nothing")
    }

    func testARequestNamingAnAppOutsideTheScopeIsRefusedNamingIt() {
        let sender = Sender(name: "tenant-a", scope: SenderScope(apps: [a]))
        XCTAssertNil(sender.refusal(naming: [a, a]))
        guard case .forbidden(let reason)? = sender.refusal(naming: [a, b]) else {
            return XCTFail("an app outside the scope must be refused")
        }
        XCTAssertTrue(reason.contains("com.example.b"), reason)
        XCTAssertFalse(reason.contains("com.example.a"), "only the apps outside are named: \(reason)")
        XCTAssertNil(Sender.loopback.refusal(naming: [a, b]))
    }

    /// `SenderOnly` refuses a key whose dialects leave this endpoint out, in the dialect's
    /// shape, before the endpoint runs.
    func testAKeyOutsideTheDialectGetsTheDialectsOwn403() throws {
        let store = FakeBridgeStore()
        store.platforms = [a: .apns]
        store.links = [.init(appID: a, token: DeviceToken(bytes: [1]), selector: ">news")]
        try keys.addSenderKey(name: "pbx", digest: "k-pbx", scope: SenderScope(dialects: [.pnm2]))
        try keys.addSenderKey(name: "bridge", digest: "k-bridge", scope: SenderScope(dialects: [.bridge]))
        let publisher = RouteGroup(
            errors: BridgeErrors(),
            SenderOnly(
            TopicPublisher(subscriptions: store, bridgeApps: BridgeApps(apns: a.rawValue, fcm: nil)),
            senders: SenderAuthorization(keys: keys, digest: { $0 })).routes)
        func publish(_ key: String) -> Response {
            publisher.handle(
                Request(
                    method: "POST", path: "/push/topics/news",
                    headers: ["authorization": "Bearer \(key)", "content-type": "application/json"],
                    body: Array(#"{"apns": {"aps": {"alert": "hi"}}}"#.utf8), remoteAddress: "192.0.2.7"))
        }
        let refused = publish("k-pbx")
        XCTAssertEqual(refused.status, 403, String(decoding: refused.body, as: UTF8.self))
        XCTAssertTrue(String(decoding: refused.body, as: UTF8.self).contains("bridge"))
        XCTAssertTrue(store.queued.isEmpty, "a refused publish queues nothing")
        XCTAssertEqual(publish("k-bridge").status, 202)
        XCTAssertEqual(store.queued.count, 1)
    }

    /// A bridge publish from a key that reaches none of the bridge's apps is refused; one that
    /// reaches one of them queues its devices and says nothing of the others (other tenants'
    /// subscribers do not exist to it), which only the log line counts.
    func testABridgePublishIsRefusedOrNarrowedByTheAppScope() throws {
        let store = FakeBridgeStore()
        store.platforms = [a: .apns, b: .apns]
        store.links = [
            .init(appID: a, token: DeviceToken(bytes: [1]), selector: ">news"),
            .init(appID: b, token: DeviceToken(bytes: [2]), selector: ">news"),
        ]
        try keys.addSenderKey(name: "only-b", digest: "k-b", scope: SenderScope(apps: [b]))
        try keys.addSenderKey(name: "other", digest: "k-x", scope: SenderScope(apps: [AppID("com.example.x")!]))
        let publisher = RouteGroup(
            errors: BridgeErrors(),
            SenderOnly(
            TopicPublisher(subscriptions: store, bridgeApps: BridgeApps(apns: a.rawValue, fcm: b.rawValue)),
            senders: SenderAuthorization(keys: keys, digest: { $0 })).routes)
        func publish(_ key: String) -> Response {
            publisher.handle(
                Request(
                    method: "POST", path: "/push/topics/news",
                    headers: ["authorization": "Bearer \(key)", "content-type": "application/json"],
                    body: Array(#"{"apns": {"aps": {"alert": "hi"}}}"#.utf8), remoteAddress: "192.0.2.7"))
        }
        XCTAssertEqual(publish("k-x").status, 403)
        XCTAssertTrue(store.queued.isEmpty)
        let narrowed = publish("k-b")
        XCTAssertEqual(narrowed.status, 202)
        let body = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(narrowed.body)) as? [String: Any])
        let content = try XCTUnwrap((body["response"] as? [String: Any])?["content"] as? [String: Any], "\(body)")
        XCTAssertEqual(content["queued"] as? Int, 1)
        XCTAssertNil(content["left_out"], "\(content)")
        XCTAssertEqual(store.queued.map(\.1), [[DeviceToken(bytes: [2])]])
        XCTAssertEqual(narrowed.logNote, "1 queued, 1 left out of only-b's scope")
    }

    /// `keys add NAME --operator` alone: no dialect takes it, in the dialect's own shape.
    func testAnOperatorOnlyKeySendsNothing() throws {
        XCTAssertFalse(SenderScope.operatorOnly.sends)
        XCTAssertFalse(SenderScope.operatorOnly.allows(a))
        XCTAssertFalse(SenderScope.operatorOnly.allows(.pnm2))
        XCTAssertTrue(SenderScope(apps: [a], isOperator: true).sends, "with --app it sends too")
        XCTAssertTrue(SenderScope.unrestricted.sends)
        let store = FakeBridgeStore()
        store.platforms = [a: .apns]
        store.links = [.init(appID: a, token: DeviceToken(bytes: [1]), selector: ">news")]
        try keys.addSenderKey(name: "prometheus", digest: "k-ops", scope: .operatorOnly)
        let publisher = RouteGroup(
            errors: BridgeErrors(),
            SenderOnly(
            TopicPublisher(subscriptions: store, bridgeApps: BridgeApps(apns: a.rawValue, fcm: nil)),
            senders: SenderAuthorization(keys: keys, digest: { $0 })).routes)
        let refused = publisher.handle(
            Request(
                method: "POST", path: "/push/topics/news",
                headers: ["authorization": "Bearer k-ops", "content-type": "application/json"],
                body: Array(#"{"apns": {"aps": {"alert": "hi"}}}"#.utf8), remoteAddress: "127.0.0.1"))
        XCTAssertEqual(refused.status, 403, String(decoding: refused.body, as: UTF8.self))
        XCTAssertTrue(String(decoding: refused.body, as: UTF8.self).contains("sends nothing"))
        XCTAssertTrue(store.queued.isEmpty)
    }

    func testWithoutAnOperatorKeyOnlyLoopbackReadsTheOperatorPages() throws {
        try keys.addSenderKey(name: "pbx", digest: "k-pbx")
        let access = OperatorAccess(keys: keys, digest: { $0 })
        XCTAssertTrue(allowed(access.check(page(from: "127.0.0.1"))))
        XCTAssertFalse(allowed(access.check(page(key: "k-pbx", from: "192.0.2.7"))), "a sender key is no operator key")
        XCTAssertFalse(allowed(access.check(page(from: "192.0.2.7"))))
    }

    func testOnceAnOperatorKeyExistsEveryCallerNeedsOne() throws {
        try keys.addSenderKey(name: "pbx", digest: "k-pbx")
        try keys.addSenderKey(name: "prometheus", digest: "k-ops", scope: SenderScope(isOperator: true))
        let access = OperatorAccess(keys: keys, digest: { $0 })
        XCTAssertFalse(allowed(access.check(page(from: "127.0.0.1"))), "loopback is no exemption any more")
        XCTAssertFalse(allowed(access.check(page(key: "k-pbx", from: "127.0.0.1"))))
        XCTAssertTrue(allowed(access.check(page(key: "k-ops", from: "192.0.2.7"))))
        XCTAssertTrue(allowed(access.check(page(key: "k-ops", from: "127.0.0.1"))))
        keys.failing = true
        guard case .unavailable = access.check(page(key: "k-ops", from: "127.0.0.1")) else {
            return XCTFail("an unreadable key store is not a refusal")
        }
    }

    private func page(key: String? = nil, from address: String) -> Request {
        var headers: [String: String] = [:]
        if let key { headers["authorization"] = "Bearer \(key)" }
        return Request(method: "GET", path: "/metrics", headers: headers, remoteAddress: address)
    }

    private func allowed(_ decision: OperatorAccess.Decision) -> Bool {
        if case .allowed = decision { return true }
        return false
    }
}
