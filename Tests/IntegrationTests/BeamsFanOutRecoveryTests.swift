import Foundation
import MockUpstream
import PushTesting
import XCTest

/// The durable fan-out: `kill -9` of `pushgate serve` in the middle of a publish's fan-out
/// loses nothing; the restarted responder delivers every remaining push.
final class BeamsFanOutRecoveryTests: XCTestCase {
    static let appKey = "crash-app-key"
    static let devices = 2_000

    func testKillNineMidFanOutThenRestartDeliversEveryPush() throws {
        var configuration = MockAPNsConfiguration(providerKeys: [try .fixture])
        // Few streams, each answered slowly: the fan-out takes seconds, long enough to be
        // killed in the middle of it. Bodies are not kept: only which token got a push counts.
        configuration.maxConcurrentStreams = 40
        configuration.recordBodies = false
        let apns = try MockAPNs(configuration: configuration)
        defer { apns.shutdown() }
        let pushgate = try PushgateInstance(environment: [
            "PUSHGATE_CA_FILE": MockFixtures.caFile, "PUSHGATE_APNS_URL": apns.baseURL,
            "PUSHGATE_APNS_SANDBOX_URL": apns.baseURL,
        ])
        try pushgate.start()
        defer { pushgate.stop() }
        let added = try pushgate.cli([
            "apps", "add", "--id", "com.example.crash", "--platform", "apns", "--team-id", MockFixtures.apnsTeamID,
            "--key-id", MockFixtures.apnsKeyID, "--key-file", MockFixtures.apnsKeyFile, "--app-key", Self.appKey,
        ])
        XCTAssertEqual(added.status, 0, added.stderr)

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

        // Kill it once a part has arrived, well before the rest.
        XCTAssertTrue(apns.waitForRequests(count: Self.devices / 5, timeout: .seconds(20)), pushgate.serveLog)
        pushgate.killServe()
        let atKill = Set(apns.requests.compactMap(\.deviceToken))
        XCTAssertLessThan(atKill.count, Self.devices, "the kill came too late to prove anything")
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
        XCTAssertLessThanOrEqual(total - Self.devices, 2 * 1_000, "duplicates beyond what was in flight")
        let status = try pushgate.cli(["outbox", "status"])
        XCTAssertTrue(status.stdout.contains("pending: 0\n"), status.stdout)
        XCTAssertTrue(status.stdout.contains("dead letters: 0"), status.stdout)
    }
}

/// A value behind a lock, for results gathered from concurrent lanes.
final class Locked<Value>: @unchecked Sendable {
    private var value: Value
    private let lock = NSLock()

    init(_ value: Value) { self.value = value }

    func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
