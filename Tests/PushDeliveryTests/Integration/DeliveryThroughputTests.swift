import Foundation
import MockUpstream
import PushCore
import PushTesting
import XCTest

@testable import PushDelivery

/// A quick throughput check (not a gate: the number depends on the machine): 20,000 pushes
/// through the pipeline and one engine connection to the mock APNs, which shares the CPU.
/// Runs only with PUSHGATE_DELIVERY_BENCH=1; build with `-c release` for a meaningful figure.
final class DeliveryThroughputTests: XCTestCase {
    func testTwentyThousandPushesThroughOneConnection() throws {
        guard ProcessInfo.processInfo.environment["PUSHGATE_DELIVERY_BENCH"] == "1" else {
            throw XCTSkip("set PUSHGATE_DELIVERY_BENCH=1 to run")
        }
        let apns = try Integration.mockAPNs {
            $0.recordRequests = false
            $0.validatesPayloadJSON = false
        }
        defer { apns.shutdown() }
        let engine = try Integration.engine()
        defer { engine.shutdown() }
        let store = InMemoryTokenStore()
        try store.addApp(Fixtures.apnsTokenApp(), replacing: false)
        let pipeline = DeliveryPipeline(
            catalog: store, transport: engine,
            configuration: DeliveryConfiguration(apns: APNsEndpoints(production: apns.baseURL, sandbox: apns.baseURL)),
            providerTokens: ProviderTokenCache(), accessTokens: AccessTokenCache(transport: engine, logger: Fixtures.logger),
            logger: Fixtures.logger)
        _ = pipeline.deliver([Fixtures.apnsPush()])  // connect and sign first

        let count = 20_000
        let batch = Array(repeating: Fixtures.apnsPush(), count: count)
        let started = Date()
        let results = pipeline.deliver(batch)
        let seconds = Date().timeIntervalSince(started)
        XCTAssertEqual(results.filter(\.isDelivered).count, count)
        print("delivery: \(count) pushes in \(String(format: "%.2f", seconds)) s = \(Int(Double(count) / seconds)) pushes/s over \(apns.connectionCount) connection(s)")

        let requests = Array(repeating: Integration.post("\(apns.baseURL)/3/device/\(Fixtures.apnsToken.hex)"), count: count)
        let rawStarted = Date()
        _ = engine.perform(requests)
        let rawSeconds = Date().timeIntervalSince(rawStarted)
        print("engine alone: \(count) requests in \(String(format: "%.2f", rawSeconds)) s = \(Int(Double(count) / rawSeconds)) requests/s")
    }
}

/// The engine alone against any HTTP/2 server trusting the test CA, e.g. `nghttpd` beside
/// `h2load` on the same box: PUSHGATE_DELIVERY_BENCH_URL=https://127.0.0.1:PORT/path.
final class EngineThroughputTests: XCTestCase {
    func testTwentyThousandRequestsToAnExternalServer() throws {
        guard let url = ProcessInfo.processInfo.environment["PUSHGATE_DELIVERY_BENCH_URL"] else {
            throw XCTSkip("set PUSHGATE_DELIVERY_BENCH_URL to run")
        }
        let inFlight = ProcessInfo.processInfo.environment["PUSHGATE_DELIVERY_BENCH_IN_FLIGHT"].flatMap { Int($0) }
        let engine = try Integration.engine { configuration in
            if let inFlight { configuration.maxTransfersInFlight = inFlight }
        }
        defer { engine.shutdown() }
        let request = Integration.post(url, body: #"{"aps":{"alert":"hi"}}"#)
        _ = engine.perform(request)
        for round in 1...3 {
            let started = Date()
            let outcomes = engine.perform(Array(repeating: request, count: 20_000))
            let seconds = Date().timeIntervalSince(started)
            XCTAssertEqual(outcomes.filter { (try? $0.get().status) == 200 }.count, 20_000)
            print("engine round \(round): 20000 requests in \(String(format: "%.3f", seconds)) s = \(Int(20_000 / seconds)) requests/s, connections opened so far: \(engine.statistics.connectionsOpened)")
        }
    }
}
