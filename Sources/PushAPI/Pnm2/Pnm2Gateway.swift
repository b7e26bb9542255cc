import Logging
import PushCore

/// The Acrobits HTTP push gateway (pnm2): a PBX posts pushes as JSON to `/pnm2/send` or
/// `/pnm2/multisend` (or form fields to the old `/pnm2`), pushgate sends them while the
/// caller waits and answers each with the document's `{"code", "response"}`. The sends run in
/// the upstream lane, so callers waiting on a slow APNs/FCM never hold the responder threads,
/// and are parked there while their pushes are out: a waiting send holds its connection, not a
/// thread.
/// Serve it as `SenderOnly(Pnm2Gateway(…), senders:)`: only senders may push.
public struct Pnm2Gateway: SendEndpoint {
    public static let prefix = "/pnm2"
    public let dialect = SenderDialect.pnm2
    /// A multisend longer than this is refused whole: one request must not keep its caller
    /// waiting for minutes, nor take the upstream lane's whole bound on parked pushes.
    public static let maximumPushesPerRequest = 5000

    private let dispatch: Pnm2Dispatch
    /// The address this copy answers, as its route gave it (see `routes`); nil for the
    /// gateway as a whole, which answers nothing itself.
    private var address: Pnm2Endpoint?

    /// - Parameters:
    ///   - deliverer: the process's deliverer, pruning dead stored devices
    ///     (`DeliveryPipeline.sending`).
    ///   - pause: waits before the in-request retry: on a timer of the request's home, holding
    ///     no thread; tests pass one that does not wait.
    ///   - budget: whether that retry still fits before nginx gives up on the request.
    ///   - subscriptions: what a Web Push subscription named in a push must be.
    public init(
        apps: any AppCatalog, directory: any AcrobitsPushDirectory, deliverer: any Deliverer,
        subscriptions: WebPushSubscriptionCheck,
        pause: @escaping RetryPause = { seconds, home, then in home.resume(afterSeconds: seconds, then) },
        budget: Pnm2RetryBudget = .standard
    ) {
        dispatch = Pnm2Dispatch(
            apps: apps, directory: directory, subscriptions: subscriptions, deliverer: deliverer, pause: pause,
            budget: budget)
    }

    /// Waits `seconds`, then runs `then` on `home`, holding no thread meanwhile.
    public typealias RetryPause =
        @Sendable (_ seconds: Double, _ home: any HomeThread, _ then: @escaping @Sendable () -> Void) -> Void

    public func respond(to request: Request, as sender: Sender, context: RequestContext) throws -> Response {
        guard let endpoint = address else { throw Self.noEndpoint(at: request.path) }
        do {
            return try send(request, to: endpoint, as: sender, logger: context.logger)
        } catch let refusal as Pnm2Reply {
            // A request refused whole: the reply's code is the HTTP status.
            throw Pnm2Refusal(refusal.code, refusal.response)
        }
    }

    private func send(_ request: Request, to endpoint: Pnm2Endpoint, as sender: Sender, logger: Logger) throws
        -> Response
    {
        let entries: [Result<Pnm2Push, Pnm2Reply>]
        switch endpoint {
        case .send: entries = [try Pnm2Body.single(request)]
        case .multisend: entries = try Pnm2Body.list(request, limit: Self.maximumPushesPerRequest)
        case .form: entries = [.success(try Pnm2Body.form(request))]
        }
        try checkScope(entries, of: sender)
        return try dispatch.send(
            entries, deadToken: endpoint.deadToken, receivedAt: request.receivedAt, logger: logger,
            respond: { endpoint.response($0) })
    }

    /// A request naming any AppId outside the sender's scope is refused whole, before any
    /// push goes out: a multisend half sent would leave the PBX guessing which half.
    private func checkScope(_ entries: [Result<Pnm2Push, Pnm2Reply>], of sender: Sender) throws {
        if let refusal = sender.refusal(naming: entries.compactMap { try? $0.get().appID }) { throw refusal }
    }

    /// The three addresses, each answered by a copy of the gateway that knows which it is,
    /// whose POSTs reach APNs/FCM and so wait in the upstream lane (anything else is answered
    /// at once where it was read), and the rest of `/pnm2/…`, refused in pnm2's shape.
    public var routes: [Router.Route] {
        // Only a POST is given a lane: the router answers another method where it was read.
        let lane: Router.Route.Lane = { _ in .upstream }
        let addresses: [(String, Pnm2Endpoint)] = [
            ("/pnm2/?", .form), ("/pnm2/send/?", .send), ("/pnm2/multisend/?", .multisend),
        ]
        let unknown = UnknownPath { throw Self.noEndpoint(at: $0.path) }
        return addresses.map { pattern, address in
            var answering = self
            answering.address = address
            return .init(pattern, answering, endpoint: Self.prefix, methods: ["POST"], lane: lane)
        } + [.init("/pnm2/{path...}", unknown)]
    }

    private static func noEndpoint(at path: String) -> Pnm2Refusal {
        Pnm2Refusal(404, "no pnm2 endpoint at \(path): use /pnm2/send or /pnm2/multisend")
    }

    /// The busy answer's `response`: a PBX script may match it to retry.
    public static let busyMessage = "Push service busy"
}
