import PushTesting
import Foundation
import MockUpstream
import PushCore
import XCTest

@testable import PushDelivery

/// The real engine over TLS against the mock APNs: replies, multiplexing, trust, failures.
final class CurlEngineTests: XCTestCase {
    private var apns: MockAPNs!
    private var engine: CurlEngine?

    override func setUpWithError() throws {
        apns = try Integration.mockAPNs()
    }

    override func tearDown() {
        engine?.shutdown()
        apns.shutdown()
    }

    private var devicePath: String { "\(apns.baseURL)/3/device/\(Fixtures.apnsToken.hex)" }

    func testAReplyComesBackWithStatusHeadersAndBody() throws {
        let engine = try Integration.engine()
        self.engine = engine
        // No provider token: Apple's 403 MissingProviderToken, with an apns-id and a JSON reason.
        let outcome = engine.perform(Integration.post(devicePath, headers: [HTTPHeader("apns-topic", "com.example.voip")]))
        let response = try outcome.get()
        XCTAssertEqual(response.status, 403)
        XCTAssertNotNil(response.header("apns-id"))
        XCTAssertEqual(response.header("APNS-ID"), response.header("apns-id"))
        XCTAssertTrue(response.bodyText.contains("MissingProviderToken"), response.bodyText)
        let recorded = try XCTUnwrap(apns.requests.first)
        XCTAssertEqual(recorded.httpVersion, "2")
        XCTAssertEqual(recorded.method, "POST")
        XCTAssertEqual(recorded.bodyText, "{}")
    }

    func testConcurrentRequestsShareOneConnection() throws {
        let engine = try Integration.engine()
        self.engine = engine
        let outcomes = engine.perform(Array(repeating: Integration.post(devicePath), count: 500))
        XCTAssertEqual(outcomes.compactMap { try? $0.get().status }, Array(repeating: 403, count: 500))
        XCTAssertEqual(apns.connectionCount, 1)
        XCTAssertEqual(engine.statistics.connectionsOpened, 1)
        XCTAssertEqual(engine.statistics.responses, 500)
        // And the connection is kept for the next batch.
        _ = engine.perform(Array(repeating: Integration.post(devicePath), count: 50))
        XCTAssertEqual(apns.connectionCount, 1)
    }

    func testEachEngineThreadHasItsOwnConnection() throws {
        let engine = try Integration.engine { $0.threads = 2 }
        self.engine = engine
        let outcomes = engine.perform(Array(repeating: Integration.post(devicePath), count: 200))
        XCTAssertEqual(outcomes.compactMap { try? $0.get().status }, Array(repeating: 403, count: 200))
        XCTAssertEqual(apns.connectionCount, 2)
    }

    func testMoreConnectionsOpenWhenTheStreamsOfOneRunOut() throws {
        apns.shutdown()
        apns = try Integration.mockAPNs { $0.maxConcurrentStreams = 10 }
        let engine = try Integration.engine { $0.maxHostConnections = 4 }
        self.engine = engine
        // One push first, so that the connection's SETTINGS (10 streams) are known before the
        // burst. Without it the burst could be handed to the first connection before they
        // arrive, while libcurl still assumes 100 streams, and wait there in nghttp2's queue.
        XCTAssertEqual(try engine.perform(Integration.post(devicePath)).get().status, 403)
        // Slow replies keep all streams busy at once.
        apns.inject(.delay(.milliseconds(300)), forNext: 100)
        let outcomes = engine.perform(Array(repeating: Integration.post(devicePath), count: 100))
        XCTAssertEqual(outcomes.filter { (try? $0.get().status) == 403 }.count, 100)
        XCTAssertGreaterThan(apns.connectionCount, 1)
        XCTAssertLessThanOrEqual(apns.connectionCount, 4)
    }

    func testAServerCertificateFromAnUntrustedCAFails() throws {
        // The system CAs do not include the test CA.
        let engine = try Integration.engine(extraCAFile: nil)
        self.engine = engine
        guard case .failure(.tls(let message)) = engine.perform(Integration.post(devicePath)) else {
            return XCTFail("expected a TLS failure")
        }
        XCTAssertFalse(message.isEmpty)
        XCTAssertTrue(apns.requests.isEmpty)
    }

    func testTheExtraCAFileIsTrustedBesideTheSystemCAs() throws {
        // "System" directory with the server's CA, extra file with an unrelated CA: still trusted,
        // so setting CURLOPT_CAINFO did not drop the system directory.
        guard let system = try Integration.hashedCADirectory([MockFixtures.caFile]) else {
            throw XCTSkip("openssl tool not installed")
        }
        defer { try? FileManager.default.removeItem(at: system) }
        let both = try Integration.engine(extraCAFile: MockFixtures.tls("client-ca.pem"), systemCAPath: system.path)
        defer { both.shutdown() }
        XCTAssertEqual(try both.perform(Integration.post(devicePath)).get().status, 403)

        // The same unrelated extra CA beside the real system directory: the server is untrusted.
        let unrelated = try Integration.engine(extraCAFile: MockFixtures.tls("client-ca.pem"))
        defer { unrelated.shutdown() }
        guard case .failure(.tls) = unrelated.perform(Integration.post(devicePath)) else {
            return XCTFail("expected a TLS failure")
        }
    }

    func testClientIdentitiesNeverShareAConnection() throws {
        apns.shutdown()
        apns = try Integration.mockAPNs { $0.tls = .fixtureWithClientCertificates }
        let engine = try Integration.engine()
        self.engine = engine
        let pem = ClientIdentity.pem(
            certificate: Array(try MockFixtures.text(MockFixtures.clientCertificateFile).utf8),
            privateKey: Array(try MockFixtures.text(MockFixtures.clientKeyFile).utf8))
        let p12 = ClientIdentity.pkcs12(
            bundle: Array(try Data(contentsOf: URL(fileURLWithPath: MockFixtures.clientProtectedP12File))),
            password: MockFixtures.clientProtectedP12Password)
        var requests: [UpstreamRequest] = []
        for identity in [pem, p12, nil] {
            for _ in 0..<20 {
                var request = Integration.post(devicePath, headers: [HTTPHeader("apns-topic", "com.example.pushgate")])
                request.clientIdentity = identity
                requests.append(request)
            }
        }
        let outcomes = engine.perform(requests)
        let statuses = outcomes.map { (try? $0.get().status) ?? -1 }
        XCTAssertEqual(Array(statuses[0..<40]), Array(repeating: 200, count: 40), "certificate auth, PEM and P12")
        XCTAssertEqual(Array(statuses[40..<60]), Array(repeating: 403, count: 20), "no certificate, no token")
        XCTAssertEqual(apns.connectionCount, 3)
        XCTAssertEqual(apns.requests.filter { $0.auth == .certificate }.count, 40)
    }

    func testABurstForANewIdentityWaitsForItsFirstConnection() throws {
        apns.shutdown()
        apns = try Integration.mockAPNs { $0.tls = .fixtureWithClientCertificates }
        let engine = try Integration.engine()
        self.engine = engine
        // A connection to the host is up already, so libcurl's PIPEWAIT would not wait.
        XCTAssertEqual(try engine.perform(Integration.post(devicePath)).get().status, 403)
        var request = Integration.post(devicePath, headers: [HTTPHeader("apns-topic", "com.example.pushgate")])
        request.clientIdentity = .pem(
            certificate: Array(try MockFixtures.text(MockFixtures.clientCertificateFile).utf8),
            privateKey: Array(try MockFixtures.text(MockFixtures.clientKeyFile).utf8))
        let outcomes = engine.perform(Array(repeating: request, count: 50))
        XCTAssertEqual(outcomes.compactMap { try? $0.get().status }, Array(repeating: 200, count: 50))
        XCTAssertEqual(apns.connectionCount, 2)
    }

    func testWhenTheFirstConnectionFailsEveryoneWaitingForItFails() throws {
        let engine = try Integration.engine()
        self.engine = engine
        let outcomes = engine.perform(Array(repeating: Integration.post("https://127.0.0.1:1/3/device/00"), count: 10))
        XCTAssertEqual(outcomes.filter { if case .failure(.connectionLost) = $0 { true } else { false } }.count, 10)
        XCTAssertEqual(engine.statistics.failures, 10)
    }

    func testARefusedConnectionIsLost() throws {
        let engine = try Integration.engine()
        self.engine = engine
        guard case .failure(.connectionLost) = engine.perform(Integration.post("https://127.0.0.1:1/3/device/00")) else {
            return XCTFail("expected connection lost")
        }
    }

    func testASlowReplyTimesOut() throws {
        let engine = try Integration.engine(requestTimeout: 0.5)
        self.engine = engine
        apns.inject(.delay(.seconds(3)))
        guard case .failure(.timeout) = engine.perform(Integration.post(devicePath)) else {
            return XCTFail("expected a time-out")
        }
    }

    func testAResetConnectionIsLostAndTheNextRequestReconnects() throws {
        let engine = try Integration.engine()
        self.engine = engine
        apns.inject(.resetConnection)
        guard case .failure(.connectionLost) = engine.perform(Integration.post(devicePath)) else {
            return XCTFail("expected connection lost")
        }
        XCTAssertEqual(try engine.perform(Integration.post(devicePath)).get().status, 403)
    }

    func testPlainHTTPIsRefused() throws {
        let engine = try Integration.engine()
        self.engine = engine
        guard case .failure(.invalidRequest) = engine.perform(Integration.post("http://127.0.0.1:\(apns.port)/")) else {
            return XCTFail("expected an invalid request")
        }
    }

    func testShutdownFinishesWhatIsInFlightAndRefusesTheRest() throws {
        let engine = try Integration.engine()
        apns.inject(.delay(.milliseconds(300)), forNext: 5)
        let results = Locked<[UpstreamOutcome]>([])
        for _ in 0..<5 {
            engine.submit(Integration.post(devicePath)) { outcome in results.withLock { $0.append(outcome) } }
        }
        // Let the requests reach the server before shutting down.
        XCTAssertTrue(apns.waitForRequests(count: 5))
        engine.shutdown()
        XCTAssertEqual(results.withLock { $0.compactMap { try? $0.get().status } }, Array(repeating: 403, count: 5))
        XCTAssertEqual(engine.perform(Integration.post(devicePath)), .failure(.shutDown))
        engine.shutdown()  // idempotent
    }

    func testShutdownAbortsWhatOutlastsTheGracePeriod() throws {
        let engine = try Integration.engine { $0.shutdownGraceSeconds = 0.2 }
        apns.inject(.delay(.seconds(5)))
        let result = ResultBox<UpstreamOutcome>()
        engine.submit(Integration.post(devicePath)) { result.set($0) }
        XCTAssertTrue(apns.waitForRequests(count: 1))
        engine.shutdown()
        // Aborted, not answered: the mock's answer (403) would come after its 5 s delay.
        XCTAssertEqual(result.wait(timeout: 30), .failure(.shutDown))
    }

    /// One request at a time, so that each takes the easy handle the one before left: nothing
    /// of that one (its identity, method, body or address check) carries over.
    func testAReusedHandleCarriesNothingOfTheTransferBefore() throws {
        apns.shutdown()
        apns = try Integration.mockAPNs { $0.tls = .fixtureWithClientCertificates }
        let engine = try Integration.engine()
        self.engine = engine
        let topic = [HTTPHeader("apns-topic", "com.example.pushgate")]
        var certified = Integration.post(devicePath, headers: topic)
        certified.clientIdentity = .pem(
            certificate: Array(try MockFixtures.text(MockFixtures.clientCertificateFile).utf8),
            privateKey: Array(try MockFixtures.text(MockFixtures.clientKeyFile).utf8))
        certified.addressCheck = ConnectedAddressCheck(name: "anything") { _, _ in nil }
        let requests = [
            certified, UpstreamRequest(method: "GET", url: devicePath, headers: topic),
            UpstreamRequest(method: "DELETE", url: devicePath, headers: topic, body: Array("{}".utf8)),
            Integration.post(devicePath, headers: topic), certified,
        ]
        XCTAssertEqual(try requests.map { try engine.perform($0).get().status }, [200, 405, 405, 403, 200])
        XCTAssertEqual(apns.requests.map(\.method), ["POST", "GET", "DELETE", "POST", "POST"])
        XCTAssertEqual(apns.requests.map(\.bodyText), ["{}", "", "{}", "{}", "{}"])
        XCTAssertEqual(apns.requests.map { $0.auth == .certificate }, [true, false, false, false, true])
        XCTAssertEqual(apns.connectionCount, 2, "one connection with the identity, one without")
    }

    /// A request whose address check refuses where its connection went sends nothing; every
    /// request waiting for that connection fails the same way; another check, or none, passes.
    func testAnAddressCheckRefusesBeforeAnythingIsSent() throws {
        let engine = try Integration.engine()
        self.engine = engine
        let seen = Locked<[String]>([])
        let refuseLoopback = ConnectedAddressCheck(name: "no loopback") { address, _ in
            seen.withLock { $0.append(address) }
            return address == "127.0.0.1" ? "\(address) is loopback" : nil
        }
        var refused = Integration.post(devicePath)
        refused.addressCheck = refuseLoopback
        let outcomes = engine.perform(Array(repeating: refused, count: 5))
        XCTAssertEqual(outcomes, Array(repeating: .failure(.invalidRequest("127.0.0.1 is loopback")), count: 5))
        XCTAssertEqual(apns.log.count, 0, "nothing reached the server")
        XCTAssertTrue(seen.withLock { $0.contains("127.0.0.1") })

        var allowed = Integration.post(devicePath)
        allowed.addressCheck = ConnectedAddressCheck(name: "anything") { _, _ in nil }
        XCTAssertEqual(try engine.perform(allowed).get().status, 403)
        // A reused connection is judged again: the refusal does not depend on opening one.
        XCTAssertEqual(engine.perform(refused), .failure(.invalidRequest("127.0.0.1 is loopback")))
        XCTAssertEqual(try engine.perform(Integration.post(devicePath)).get().status, 403)
        XCTAssertEqual(apns.log.count, 2)
    }

    /// The check runs before the socket exists: a refused address and port receive no
    /// connection attempt at all (the kernel would have put even a bare SYN's connection in the
    /// listener's backlog), and the check sees the port it would have connected to.
    func testARefusedAddressReceivesNoConnectionAttempt() throws {
        let engine = try Integration.engine()
        self.engine = engine
        let listener = try LoopbackListener()
        let seen = Locked<[String]>([])
        var request = Integration.post("https://127.0.0.1:\(listener.port)/x")
        request.addressCheck = ConnectedAddressCheck(name: "nothing inside") { address, port in
            seen.withLock { $0.append("\(address):\(port)") }
            return "\(address) port \(port) is inside"
        }
        XCTAssertEqual(engine.perform(request), .failure(.invalidRequest("127.0.0.1 port \(listener.port) is inside")))
        XCTAssertEqual(seen.withLock { $0 }, ["127.0.0.1:\(listener.port)"])
        XCTAssertFalse(listener.hasPendingConnection, "a connection reached the refused address")
    }
}
