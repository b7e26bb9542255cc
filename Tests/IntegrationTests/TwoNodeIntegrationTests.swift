import Foundation
import MockUpstream
import PushCore
import PushTesting
import XCTest

/// Two `pushgate serve` nodes on one PostgreSQL behind one nginx, as an operator runs a pair:
/// every dialect works whichever node a request lands on, both drain one outbox without
/// sending a push twice, a node killed in the middle of a fan-out loses nothing, and a key
/// revoked or a password changed takes effect on both at once.
final class TwoNodeIntegrationTests: XCTestCase, RunsOnPostgreSQL {
    static let alertApp = "com.example.pair"
    static let fcmApp = "com.example.pair.android"
    static let appKey = "pair-app-key"

    var apns: MockAPNs!
    var fcm: MockFCM!
    var cluster: PushgateCluster!

    override func tearDown() {
        cluster?.stop()
        cluster = nil
        apns?.shutdown()
        fcm?.shutdown()
    }

    /// The mocks, and a cluster pointed at them; nothing started.
    func makeCluster(_ environment: [String: String] = [:], streams: Int = 1000) throws {
        var configuration = MockAPNsConfiguration(providerKeys: [try .fixture])
        configuration.maxConcurrentStreams = streams
        apns = try MockAPNs(configuration: configuration)
        fcm = try MockFCM(configuration: MockFCMConfiguration(serviceAccounts: [try .fixture]))
        // At debug: which node answered is read from the request lines, a success's among them.
        var base = PushgateInstance.upstreams(apns: apns, fcm: fcm)
        base["PUSHGATE_LOG_LEVEL"] = "debug"
        cluster = try PushgateCluster(environment: base.merging(environment) { _, own in own })
        try cluster.addMockAPNsApp(id: Self.alertApp, ["--topic", Self.alertApp, "--app-key", Self.appKey])
        let account = try fcm.writeServiceAccount(to: cluster.directory.appendingPathComponent("service-account.json"))
        let added = try cluster.cli(["apps", "add", "--id", Self.fcmApp, "--platform", "fcm", "--service-account", account.path])
        XCTAssertEqual(added.status, 0, added.stderr)
    }

    func post(_ path: String, _ body: String, contentType: String = "application/json", headers: [String: String] = [:])
        throws -> HTTPClient.Response
    {
        try cluster.client.post(path, contentType: contentType, body: body, headers: headers)
    }

    func waitUntil(_ what: String, timeout: TimeInterval = 30, _ condition: () throws -> Bool) throws {
        try cluster.waitFor(what, timeout: timeout, condition)
    }

    /// Request lines of `status` for `path` in `node`'s log.
    func answered(_ node: PushgateCluster.Node, _ method: String, _ path: String, _ status: Int) -> Int {
        node.logText.components(separatedBy: "\n").filter { $0.contains("\(method) \(path) \(status) ") }.count
    }

    func testEveryDialectWorksWhicheverNodeARequestLandsOn() throws {
        try makeCluster([
            "PUSHGATE_BRIDGE_APNS_APP": Self.alertApp, "PUSHGATE_BRIDGE_FCM_APP": Self.fcmApp,
            "PUSHGATE_COSPACE_FCM_APP": Self.fcmApp,
        ])
        let aliceUser = try cluster.cli(["users", "add", "alice", "--password-stdin"], stdin: "alice-secret\n")
        XCTAssertEqual(aliceUser.status, 0, aliceUser.stderr)
        let aliceID = aliceUser.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let cospaceApp = "39JSDKGJ38.com.example.pair"
        try cluster.addMockAPNsApp(id: cospaceApp, ["--topic", Self.alertApp])
        try cluster.start()

        // Acrobits: reported on one node, sent through the other.
        let reporterToken = String(repeating: "a1", count: 32)
        let report = try post(
            "/token/", "selector=PAIR000000000000:1&token_msgs=\(DeviceToken.fromHex(reporterToken)!.base64.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)&appid_msgs=\(Self.alertApp)",
            contentType: "application/x-www-form-urlencoded")
        XCTAssertEqual(report.status, 200, report.text)
        let sent = try post("/pnm2/send", #"{"verb": "NotifyTextMessage", "AppId": "\#(Self.alertApp)", "Selector": "PAIR000000000000:1", "Message": "hi"}"#)
        XCTAssertEqual(sent.status, 200, sent.text)
        XCTAssertTrue(sent.text.contains(#""code": 200"#), sent.text)
        XCTAssertEqual(apns.requests.last?.path, "/3/device/\(reporterToken)")

        // cospace: a device registered, then an event for its owner through the outbox.
        let cospaceToken = String(repeating: "c2", count: 32)
        let alice = ["Authorization": "Basic " + Data("alice:alice-secret".utf8).base64EncodedString()]
        let registered = try post(
            "/api/push", #"{"system":"apns","action":"add","device_token":"\#(cospaceToken)","application_id":"\#(cospaceApp)"}"#,
            headers: alice)
        XCTAssertEqual(registered.status, 200, registered.text)
        XCTAssertEqual(try cluster.client.get("/api/push", headers: alice).status, 200)
        let event = try post("/api/push/events", #"{"owner":"\#(aliceID)","message":"fax_new","fax":"af729cc0-3251-11e2-81c1-0800200c9a66","phone":"+492215587412","page_count":"2"}"#)
        XCTAssertEqual(event.text, #"{"queued":1}"#)
        try waitUntil("the cospace event's push") { self.apns.requests.contains { $0.deviceToken == cospaceToken } }

        // Beams: a client registered and subscribed, then a publish.
        let beamsToken = String(repeating: "b3", count: 32)
        let created = try post(
            "/client_api/v1/clients", #"{"app_key":"\#(Self.appKey)","platform_type":"apns","token":"\#(beamsToken)"}"#)
        XCTAssertEqual(created.status, 201, created.text)
        let clientID = try XCTUnwrap(
            (try JSONSerialization.jsonObject(with: Data(created.body)) as? [String: Any])?["id"] as? String)
        let subscribed = try post("/client_api/v1/clients/\(clientID)/interests/pair", #"{"app_key":"\#(Self.appKey)"}"#)
        XCTAssertEqual(subscribed.status, 200, subscribed.text)
        let published = try post(
            "/publish_api/v1/instances/\(Self.appKey)/publishes", #"{"interests":["pair"],"apns":{"aps":{"alert":"beams"}}}"#)
        XCTAssertEqual(published.status, 200, published.text)
        try waitUntil("the Beams publish's push") { self.apns.requests.contains { $0.deviceToken == beamsToken } }

        // The push bridge: subscribed, then a publish to the topic.
        let bridgeToken = "dXk:APA91bPair-token_1"
        let pnsub = try post("/push/notifications", #"{"pnsub":{"destination":"gcm://\#(bridgeToken)","topic":"pair/news"}}"#)
        XCTAssertEqual(pnsub.status, 200, pnsub.text)
        let topic = try post("/push/topics/pair/news", #"{"fcm": {"data": {"k": "v"}}}"#)
        XCTAssertEqual(topic.status, 202, topic.text)
        try waitUntil("the bridge publish's send") {
            self.fcm.sendRequests.contains { $0.bodyJSON?.objectValue?["message"]?.objectValue?["token"] == .string(bridgeToken) }
        }

        // nginx sent requests to both nodes in turn.
        for node in cluster.nodes {
            XCTAssertGreaterThan(
                node.logText.components(separatedBy: "\n").filter { $0.contains("] POST /") }.count, 0,
                "\(node.name) answered no request:\n\(cluster.logs)")
        }
        XCTAssertEqual(apns.requests.count, 3, "one push each, none twice")
        XCTAssertEqual(fcm.sendRequests.count, 1)
    }

    /// More devices than one node claims in one go (two batches of 1,000), each push held by
    /// the mock for longer than a node's idle poll: the node that took the publish is busy
    /// with its two batches when the other finds the rest due, so both deliver, and the leases
    /// keep any push from going out twice.
    func testBothNodesDrainOneFanOutAndNoDeviceIsPushedTwice() throws {
        try makeCluster()
        try cluster.start()
        let tokens = try registerBeamsDevices(2_500)

        apns.inject(.delay(.seconds(8)), forNext: 100_000)
        let published = try post(
            "/publish_api/v1/instances/\(Self.appKey)/publishes", #"{"interests":["everyone"],"apns":{"aps":{"alert":"both"}}}"#)
        XCTAssertEqual(published.status, 200, published.text)

        try waitUntil("every device's push", timeout: 120) { Set(self.apns.requests.compactMap(\.deviceToken)).count == tokens.count }
        try waitUntil("the outbox empty", timeout: 60) { try self.cluster.query("SELECT count(*) FROM outbox") == "0" }
        XCTAssertEqual(apns.requests.count, tokens.count, "a device was pushed twice")
        XCTAssertEqual(Set(apns.requests.compactMap(\.deviceToken)), Set(tokens))

        let deliveredByNode = cluster.nodes.map { delivered(by: $0) }
        XCTAssertEqual(deliveredByNode.reduce(0, +), tokens.count, cluster.logs)
        for (node, count) in zip(cluster.nodes, deliveredByNode) {
            XCTAssertGreaterThan(count, 0, "\(node.name) delivered none of the fan-out:\n\(cluster.logs)")
        }
    }

    /// `kill -9` of the node that holds a fan-out's claim while its pushes are in flight: the
    /// other node (which does not take back claims when it starts, as they may be a live
    /// node's) delivers every push once the lease has run out.
    func testANodeKilledMidFanOutLosesNothingTheOtherDeliversAfterTheLease() throws {
        try makeCluster(["PUSHGATE_OUTBOX_LEASE_SECONDS": "5"])
        let first = cluster.nodes[0]
        let second = cluster.nodes[1]
        try cluster.start(nodes: [first])
        let tokens = try registerBeamsDevices(300)

        // The first node's pushes reach the mock, whose answers are held back: in flight.
        apns.inject(.delay(.seconds(30)), forNext: 100_000)
        let published = try post(
            "/publish_api/v1/instances/\(Self.appKey)/publishes", #"{"interests":["everyone"],"apns":{"aps":{"alert":"survive"}}}"#)
        XCTAssertEqual(published.status, 200, published.text)
        // Every push has reached the mock (it records a request as it arrives) and none is
        // answered: the whole fan-out is in flight on the first node.
        XCTAssertTrue(apns.waitForRequests(count: tokens.count, timeout: .seconds(60)), cluster.logs)
        XCTAssertEqual(try cluster.query("SELECT count(*) FROM outbox WHERE claimed_until IS NOT NULL"), "\(tokens.count)")
        let leaseEnd = try cluster.query("SELECT min(claimed_until) FROM outbox")

        cluster.kill(first)
        let fromSecond = { self.apns.requests.filter { $0.sequence > tokens.count } }
        XCTAssertEqual(fromSecond().count, 0)
        apns.clearFaults()
        try cluster.startNode(second)

        try waitUntil("every device's push from the second node", timeout: 90) {
            Set(fromSecond().compactMap(\.deviceToken)).count == tokens.count
        }
        XCTAssertEqual(Set(fromSecond().compactMap(\.deviceToken)), Set(tokens))
        // Not one of them before the dead node's lease ended: a live node's claim is respected.
        let firstAfterKill = try XCTUnwrap(fromSecond().map(\.receivedAt).min())
        XCTAssertGreaterThanOrEqual(
            Int64(firstAfterKill.timeIntervalSince1970 * 1000), Int64(leaseEnd)!, "delivered before the lease ran out")
        try waitUntil("the outbox empty", timeout: 60) { try self.cluster.query("SELECT count(*) FROM outbox") == "0" }
        XCTAssertFalse(first.isServing)
    }

    func testARevokedSenderKeyIsRefusedByBothNodesAtOnce() throws {
        try makeCluster()
        try cluster.start()
        // A second key stays valid: with none left, loopback callers (this test) are served.
        XCTAssertEqual(try cluster.cli(["keys", "add", "pbx-2"]).status, 0)
        let added = try cluster.cli(["keys", "add", "pbx-1"])
        XCTAssertEqual(added.status, 0, added.stderr)
        let key = added.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let send = { () throws -> HTTPClient.Response in
            try self.post(
                "/pnm2/send", #"{"verb": "NotifyTextMessage", "AppId": "\#(Self.alertApp)", "Selector": "nobody", "Message": "x"}"#,
                headers: ["Authorization": "Bearer \(key)"])
        }
        // Each node has read the key (and would remember it, if it cached keys).
        for _ in 0..<4 { XCTAssertEqual(try send().status, 200) }
        for node in cluster.nodes { XCTAssertGreaterThan(answered(node, "POST", "/pnm2/send", 200), 0, cluster.logs) }

        XCTAssertEqual(try cluster.cli(["keys", "revoke", "pbx-1"]).status, 0)
        for _ in 0..<4 {
            let refused = try send()
            XCTAssertEqual(refused.status, 401, refused.text)
        }
        for node in cluster.nodes { XCTAssertGreaterThan(answered(node, "POST", "/pnm2/send", 401), 0, cluster.logs) }
    }

    func testAChangedPasswordIsRefusedByBothNodesAtOnce() throws {
        try makeCluster()
        XCTAssertEqual(try cluster.cli(["users", "add", "bob", "--password-stdin"], stdin: "old-secret\n").status, 0)
        try cluster.start()
        let as_ = { (password: String) throws -> Int in
            try self.cluster.client.get(
                "/api/push", headers: ["Authorization": "Basic " + Data("bob:\(password)".utf8).base64EncodedString()]
            ).status
        }
        // Both nodes checked the old password and remember the success.
        for _ in 0..<4 { XCTAssertEqual(try as_("old-secret"), 200) }
        for node in cluster.nodes { XCTAssertGreaterThan(answered(node, "GET", "/api/push", 200), 0, cluster.logs) }

        XCTAssertEqual(try cluster.cli(["users", "passwd", "bob", "--password-stdin"], stdin: "new-secret\n").status, 0)
        for _ in 0..<4 { XCTAssertEqual(try as_("old-secret"), 401) }
        for node in cluster.nodes { XCTAssertGreaterThan(answered(node, "GET", "/api/push", 401), 0, cluster.logs) }
        for _ in 0..<2 { XCTAssertEqual(try as_("new-secret"), 200) }
    }

    // MARK: Helpers

    /// `count` Beams clients subscribed to "everyone", registered through the client API
    /// (eight at a time, so through both nodes); their tokens.
    func registerBeamsDevices(_ count: Int) throws -> [String] {
        let tokens = (0..<count).map { String(format: "%064x", 0xBEEF_0000 + $0) }
        let failures = Locked<[String]>([])
        let client = cluster.client
        DispatchQueue.concurrentPerform(iterations: 8) { lane in
            for index in stride(from: lane, to: tokens.count, by: 8) {
                do {
                    let created = try client.request(
                        "POST", "/client_api/v1/clients", headers: ["Content-Type": "application/json"],
                        body: Array(#"{"app_key":"\#(Self.appKey)","platform_type":"apns","token":"\#(tokens[index])"}"#.utf8))
                    let body = try JSONSerialization.jsonObject(with: Data(created.body)) as? [String: Any]
                    guard created.status == 201, let id = body?["id"] as? String else {
                        throw PushgateInstance.Failure("register: \(created.status) \(created.text)")
                    }
                    let subscribed = try client.request(
                        "POST", "/client_api/v1/clients/\(id)/interests/everyone",
                        headers: ["Content-Type": "application/json"], body: Array(#"{"app_key":"\#(Self.appKey)"}"#.utf8))
                    guard subscribed.status == 200 else {
                        throw PushgateInstance.Failure("subscribe: \(subscribed.status) \(subscribed.text)")
                    }
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }
        }
        XCTAssertEqual(failures.withLock { $0 }, [])
        return tokens
    }

    /// The pushes `node` reported delivered in its outbox batch lines (logged at debug).
    func delivered(by node: PushgateCluster.Node) -> Int {
        node.logText.components(separatedBy: "\n").filter { $0.hasSuffix("] outbox batch") }.reduce(0) { sum, line in
            guard let range = line.range(of: #" delivered=\d+"#, options: .regularExpression) else { return sum }
            return sum + (Int(line[range].dropFirst(" delivered=".count)) ?? 0)
        }
    }
}
