import PushCore
import Foundation
import MockUpstream
import PushTesting
import XCTest

/// The durable fan-out: `kill -9` of `pushgate serve` in the middle of a publish's fan-out
/// loses nothing; the restarted responder delivers every remaining push.
final class BeamsFanOutRecoveryTests: XCTestCase {
    static let appKey = "crash-app-key"
    /// Three of the worker's batches (1,000 rows): at most two are in flight at once, so when
    /// pushes of the third arrive the first was answered and completed.
    static let devices = 3_000

    func testKillNineMidFanOutThenRestartDeliversEveryPush() throws {
        var configuration = MockAPNsConfiguration(providerKeys: [try .fixture])
        // Few streams, each answered slowly: the fan-out takes seconds, long enough to be
        // killed in the middle of it. Bodies are not kept: only which token got a push counts.
        configuration.maxConcurrentStreams = 40
        configuration.recordBodies = false
        // The mock refuses a second provider token for the key within 20 minutes, as Apple
        // may: the restarted process must go on with the token its predecessor kept.
        let apns = try MockAPNs(configuration: configuration)
        defer { apns.shutdown() }
        let pushgate = try PushgateInstance(environment: PushgateInstance.upstreams(apns: apns))
        try pushgate.start()
        defer { pushgate.stop() }
        try pushgate.addMockAPNsApp(id: "com.example.crash", ["--app-key", Self.appKey])

        // Clients registered and subscribed through the client API, eight at a time.
        let tokens = (0..<Self.devices).map { String(format: "%064x", 0xC0FFEE_0000 + $0) }
        let failures = Locked<[String]>([])
        let client = pushgate.client
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

        apns.inject(.delay(.milliseconds(150)), forNext: 100_000)
        let published = try client.request(
            "POST", "/publish_api/v1/instances/\(Self.appKey)/publishes", headers: ["Content-Type": "application/json"],
            body: Array(#"{"interests":["everyone"],"apns":{"aps":{"alert":"survive"}}}"#.utf8))
        XCTAssertEqual(published.status, 200, published.text)

        // Kill it late enough that the first batch was answered and completed, early enough
        // that pushes were still in flight and others not even claimed.
        XCTAssertTrue(apns.waitForRequests(count: Self.devices * 3 / 4, timeout: .seconds(20)), pushgate.serveLog)
        pushgate.killServe()
        let atKill = Set(apns.requests.compactMap(\.deviceToken))
        XCTAssertLessThan(atKill.count, Self.devices, "the kill came too late to prove anything")
        let pendingAtKill = try pendingCount(pushgate)
        XCTAssertLessThan(pendingAtKill, Self.devices, "no batch was completed before the kill")
        print("kill -9 after \(atKill.count) of \(Self.devices) devices had their push; \(pendingAtKill) rows pending")
        XCTAssertFalse(pushgate.isServing)

        apns.clearFaults()
        try pushgate.restartServe()
        let deadline = Date().addingTimeInterval(20)
        var received = Set<String>()
        while Date() < deadline {
            received = Set(apns.requests.compactMap(\.deviceToken))
            if received.count == Self.devices { break }
            usleep(100_000)
        }
        XCTAssertEqual(received.count, Self.devices, "missing after the restart: \(Set(tokens).subtracting(received).count)")
        XCTAssertEqual(received, Set(tokens))
        // At least once: only pushes in flight at the kill (two claimed batches at most)
        // may have gone out twice.
        let total = apns.requests.count
        XCTAssertLessThanOrEqual(total - Self.devices, pendingAtKill, "duplicates beyond what was pending")
        // The last answers are completed a moment after they arrive.
        var status = try pushgate.cli(["outbox", "status"])
        while Date() < deadline, !status.stdout.contains("pending: 0\n") {
            usleep(100_000)
            status = try pushgate.cli(["outbox", "status"])
        }
        XCTAssertTrue(status.stdout.contains("pending: 0\n"), status.stdout + ((try? pushgate.cli(["outbox", "log"]).stdout) ?? "").prefix(1500) + ((try? String(contentsOf: pushgate.directory.appendingPathComponent("serve-restarted.log"), encoding: .utf8)) ?? "").suffix(3000))
        XCTAssertTrue(status.stdout.contains("dead letters: 0"), status.stdout)
    }
}

/// The outbox's pending rows, as `pushgate outbox status` reports them.
private func pendingCount(_ pushgate: PushgateInstance) throws -> Int {
    let status = try pushgate.cli(["outbox", "status"])
    guard let line = status.stdout.split(separator: "\n").first(where: { $0.hasPrefix("pending: ") }),
        let count = Int(line.dropFirst("pending: ".count))
    else { throw PushgateInstance.Failure("outbox status: \(status.stdout) \(status.stderr)") }
    return count
}
