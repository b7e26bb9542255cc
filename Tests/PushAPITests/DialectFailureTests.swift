import Logging
import PushAPI
import PushCore
import PushTesting
import XCTest

/// The one error protocol: what a dialect's handler throws becomes its response in the router,
/// a refusal as the dialect renders it, a store that is away as a 503 with `Retry-After` in the
/// dialect's shape, anything else as its 500. And `SenderOnly` is the one sender check.
final class DialectFailureTests: XCTestCase {
    /// Every call fails as a stopped database makes it fail.
    struct AwayStore: SenderKeyStore, AcrobitsAccountStore {
        static let away = StoreUnavailable(reason: "connection refused")
        func hasValidSenderKeys() throws -> Bool { throw Self.away }
        func hasValidOperatorKeys() throws -> Bool { throw Self.away }
        func validSenderKey(digest: String) throws -> SenderKey? { throw Self.away }
        func addSenderKey(name: String, digest: String, scope: SenderScope) throws { throw Self.away }
        func senderKeys() throws -> [SenderKey] { throw Self.away }
        func revokeSenderKey(name: String) throws -> Bool { throw Self.away }
        func saveAccountTokens(selector: String, username: String?, tokens: [ChannelToken]) throws { throw Self.away }
        func saveAccountTokens(
            selector: String, username: String?, tokens: [ChannelToken], admittingNewDevices: () throws -> Void
        ) throws { throw Self.away }
        func removeAccount(selector: String) throws -> Int { throw Self.away }
    }

    /// A dialect whose handler throws what the test sets.
    struct Throwing: DialectHandler {
        let error: any Error & Sendable
        func respond(to request: Request, context: RequestContext) throws -> Response { throw error }
    }

    /// The test dialect's renderer: every line starts with "shape:".
    struct Shape: ErrorRenderer {
        func badPath(_ reason: String) -> Response { .text(400, "shape: \(reason)") }
        func bodyTooLarge(bytes: Int, limit: Int) -> Response { .text(413, "shape: \(bytes) > \(limit)") }
        func failure(_ failure: ServiceFailure) -> Response {
            var response = Response.text(failure.status, "shape: \(failure.message)", headers: failure.headers)
            response.logNote = failure.detail
            return response
        }
        func methodNotAllowed(_ method: String, allowed: [String]) -> Response { .text(405, "shape: \(method)") }
    }

    struct Refusal: DialectError {
        var response: Response { .text(418, "refused") }
    }

    struct Bug: Error {}

    let senders = SenderAuthorization(keys: AwayStore(), digest: { $0 })

    private func post(_ path: String, _ body: String, type: String = "application/json") -> Request {
        Request(method: "POST", path: path, headers: ["content-type": type], body: Array(body.utf8))
    }

    private func text(_ response: Response) -> String {
        String(decoding: response.body, as: UTF8.self)
    }

    private func assertUnavailable(_ response: Response, body: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(response.status, 503, text(response), file: file, line: line)
        XCTAssertEqual(response.header("Retry-After"), "5", file: file, line: line)
        XCTAssertEqual(text(response), body, file: file, line: line)
        XCTAssertTrue(response.logNote?.contains("connection refused") == true, response.logNote ?? "", file: file, line: line)
    }

    func testTheRouterRendersWhatAHandlerThrowsInItsDialect() {
        let shaped = RouteGroup(
            errors: Shape(),
            [
                .init("/refusal", Throwing(error: Refusal())),
                .init("/away", Throwing(error: StoreUnavailable(reason: "server closed the connection"))),
                .init("/bug", Throwing(error: Bug())),
            ])
        let router = Router(routes: shaped.routes + [.init("/healthz", HealthCheck())])
        XCTAssertEqual(router.handle(Request(method: "GET", path: "/refusal")), .text(418, "refused"))
        let away = router.handle(Request(method: "GET", path: "/away"))
        XCTAssertEqual(away.status, 503)
        XCTAssertEqual(away.header("Retry-After"), "5")
        XCTAssertEqual(text(away), "shape: the database is unavailable, try again later\n")
        XCTAssertTrue(away.logNote?.contains("server closed the connection") == true)
        let bug = router.handle(Request(method: "GET", path: "/bug"))
        XCTAssertEqual(bug.status, 500)
        XCTAssertNil(bug.header("Retry-After"))
        XCTAssertEqual(text(bug), "shape: internal error\n")
        XCTAssertEqual(router.handle(Request(method: "GET", path: "/healthz")).status, 200)
    }

    /// Answers with the request id its logger carries.
    struct LoggerEcho: DialectHandler {
        func respond(to request: Request, context: RequestContext) throws -> Response {
            .text(200, context.logger[metadataKey: "request-id"].map { "\($0)" } ?? "none")
        }
    }

    /// Keeps metadata and writes nothing.
    struct MetadataOnly: LogHandler {
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .info
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(event: LogEvent) {}
    }

    func testEachRequestGetsALoggerCarryingItsId() {
        let logger = Logger(label: "test", factory: { _ in MetadataOnly() })
        let router = Router(routes: [.init("/echo", LoggerEcho())], logger: logger)
        XCTAssertEqual(router.handle(Request(method: "GET", path: "/echo", id: "4f2a")), .text(200, "4f2a"))
        XCTAssertEqual(router.handle(Request(method: "GET", path: "/echo", id: "77")), .text(200, "77"))
    }

    func testEachSendEndpointAnswersAStoreThatIsAwayIn503OfItsShape() {
        let pnm2 = RouteGroup(errors: Pnm2Errors(), SenderOnly(
            Pnm2Gateway(
                apps: InMemoryTokenStore(), directory: Pnm2GatewayTests.Directory(),
                deliverer: Pnm2GatewayTests.ScriptedDeliverer(), subscriptions: .forDialectTests, pause: { _, _, then in then() }),
            senders: senders).routes)
        assertUnavailable(
            pnm2.handle(post("/pnm2/send", "{}")),
            body: #"{"code": 503, "response": "the database is unavailable, try again later", "status": 503}"#)
        let events = RouteGroup(errors: CospaceErrors(), SenderOnly(
            PushEvents(publisher: CospaceEventPublisher(users: CospaceMemoryStore(), outbox: CospaceMemoryStore())),
            senders: senders).routes)
        assertUnavailable(events.handle(post("/api/push/events", "{}")), body: #"{"status":"service-unavailable"}"#)
        let beams = RouteGroup(errors: BeamsErrors(), SenderOnly(
            BeamsPublishAPI(
                store: BeamsTests.FakeBeamsStore(), identifiers: RandomIdentifier(randomBytes: { [UInt8](repeating: 1, count: $0) }),
                wakeOutbox: {}),
            senders: senders).routes)
        assertUnavailable(
            beams.handle(post("/publish_api/v1/instances/k/publishes", "{}")),
            body: #"{"description":"The database is unavailable, try again later.","error":"Service Unavailable"}"#)
        let topics = RouteGroup(
            errors: BridgeErrors(),
            SenderOnly(TopicPublisher(subscriptions: FakeBridgeStore(), bridgeApps: BridgeApps(apns: nil, fcm: nil)), senders: senders).routes)
        assertUnavailable(
            topics.handle(post("/push/topics/a", "{}")),
            body: #"{"response":{"error":"the database is unavailable, try again later"}}"#)
    }

    func testTheAddressIsCheckedBeforeTheSenderAndTheKeyBeforeTheBody() {
        let pnm2 = RouteGroup(errors: Pnm2Errors(), SenderOnly(
            Pnm2Gateway(
                apps: InMemoryTokenStore(), directory: Pnm2GatewayTests.Directory(),
                deliverer: Pnm2GatewayTests.ScriptedDeliverer(), subscriptions: .forDialectTests, pause: { _, _, then in then() }),
            senders: senders).routes)
        // A wrong method is told whoever asks, without asking the (unreachable) key store.
        XCTAssertEqual(pnm2.handle(Request(method: "GET", path: "/pnm2/send")).status, 400)
        XCTAssertEqual(pnm2.handle(Request(method: "POST", path: "/pnm2/elsewhere")).status, 404)
        // A malformed body is not looked at before the sender is known.
        XCTAssertEqual(pnm2.handle(post("/pnm2/send", "not json")).status, 503)
    }

    func testTheTokenReporterAnswersAStoreThatIsAwayIn503Text() {
        let reporter = RouteGroup(
            errors: ReporterErrors(),
            TokenReporter(apps: InMemoryTokenStore(), accounts: AwayStore(), subscriptions: .forDialectTests).routes)
        assertUnavailable(
            reporter.handle(Request(method: "GET", target: "/token/?selector=ABC0000000000000:1")),
            body: "the database is unavailable, try again later\n")
        let removal = RouteGroup(errors: ReporterErrors(), AccountRemovalReporter(accounts: AwayStore()).routes)
        assertUnavailable(
            removal.handle(Request(method: "GET", target: "/removeAccount/?selector=ABC0000000000000:1")),
            body: "the database is unavailable, try again later\n")
    }
}
