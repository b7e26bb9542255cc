import Logging
import PushCore

/// The Matrix Push Gateway API (`POST /_matrix/push/v1/notify`), as Sygnal serves it: a
/// homeserver posts one event's notification for its users' devices, pushgate pushes each
/// device through its registered app (the device's `app_id`) and answers
/// `{"rejected": [pushkey, …]}` with every pushkey that can never work, whose pushers the
/// homeserver then deletes. The answer must wait for the upstreams, so the notify runs in the
/// Matrix lane and is parked there while its pushes are out, holding no thread.
/// Only the homeservers of `PUSHGATE_MATRIX_HOMESERVERS` may call: a pusher has no credentials.
public struct MatrixGateway: DialectHandler {
    public static let prefix = "/_matrix"
    public static let notifyPath = "/_matrix/push/v1/notify"
    /// A notify naming more devices is refused whole (Synapse sends one per notify).
    public static let maximumDevices = 1000

    private static let tooManyDevices = MatrixRefusal.badJSON("more than \(maximumDevices) devices in one notification")

    private let apps: any AppCatalog
    private let directory: any AcrobitsPushDirectory
    private let deliverer: any Deliverer
    private let homeservers: MatrixHomeservers
    private let webPushSubscriptions: WebPushSubscriptionCheck
    private let answers: MatrixAnswerLog?

    /// - Parameters:
    ///   - directory: finds the stored device of a pushkey, so that a dead one is pruned.
    ///   - deliverer: the process's deliverer, pruning dead stored devices (`DeliveryPipeline.sending`).
    ///   - webPushSubscriptions: the allow-list of push services and the key check a Web Push
    ///     pusher's subscription must pass.
    ///   - answers: where each answer is noted for `/status`.
    public init(
        apps: any AppCatalog, directory: any AcrobitsPushDirectory, deliverer: any Deliverer,
        webPushSubscriptions: WebPushSubscriptionCheck, homeservers: MatrixHomeservers = .loopback,
        answers: MatrixAnswerLog? = nil
    ) {
        self.apps = apps
        self.directory = directory
        self.deliverer = deliverer
        self.homeservers = homeservers
        self.webPushSubscriptions = webPushSubscriptions
        self.answers = answers
    }

    /// The notify, whose POSTs wait on the upstreams in the Matrix lane (apart from pnm2's, so
    /// that a homeserver's users cannot crowd out a PBX's sends), and the rest of
    /// `/_matrix/…`, refused in the Matrix shape. A caller outside the homeservers takes no
    /// lane slot: its 403 is answered where it was read, and `respond` reads the check on the match.
    public var routes: [Router.Route] {
        let homeservers = self.homeservers
        let lane: Router.Route.Lane = { head in
            let allowed = homeservers.allows(head.remoteAddress)
            head.route?.addressAllowed = allowed
            return allowed ? .matrix : nil
        }
        let elsewhere = UnknownPath { [self] request in
            try checkCaller(request)
            throw noted(.unrecognizedPath(request.path))
        }
        return [
            .init(Self.notifyPath + "/?", self, endpoint: Self.prefix, methods: ["POST"], lane: lane),
            .init("/_matrix/{path...}", elsewhere, endpoint: Self.prefix),
        ]
    }

    /// Who asks, first: a caller not listed learns nothing, not even which paths or methods exist.
    public func checkAddress(_ request: Request, context: RequestContext) throws {
        try checkCaller(request, allowed: context.match.addressAllowed)
    }

    private func checkCaller(_ request: Request, allowed: Bool? = nil) throws {
        guard allowed ?? homeservers.allows(request.remoteAddress) else {
            throw noted(.forbidden(request.remoteAddress))
        }
    }

    public func respond(to request: Request, context: RequestContext) throws -> Response {
        try checkAddress(request, context: context)
        do {
            return try notify(request, logger: context.logger)
        } catch let refusal as MatrixRefusal {
            throw noted(refusal)
        }
    }

    /// `refusal`, noted for `/status` as the answer the homeserver gets.
    private func noted(_ refusal: MatrixRefusal) -> MatrixRefusal {
        answers?.record(status: refusal.status, refusal.message)
        return refusal
    }

    private func notify(_ request: Request, logger: Logger) throws -> Response {
        // Counted on the bytes, before a value is built for each of up to a megabyte's devices.
        guard MatrixDeviceList.isWithin(Self.maximumDevices, request.body) else { throw Self.tooManyDevices }
        let notification = try MatrixNotification.parse(request.body)
        guard !notification.devices.isEmpty else { throw MatrixRefusal.noDevices }
        guard notification.devices.count <= Self.maximumDevices else { throw Self.tooManyDevices }
        let plan = try MatrixDispatchPlan(
            notification, apps: apps, directory: directory, webPushSubscriptions: webPushSubscriptions, logger: logger)
        let devices = notification.devices.count
        guard !plan.batch.isEmpty else { return answer(plan.outcome(delivering: []), devices: devices) }
        return .parked(
            ParkedResponse(weight: plan.batch.count) { [self, plan] home, answer in
                deliverer.deliver(plan.batch, logger: logger, home: home) { [self] results in
                    answer(self.answer(plan.outcome(delivering: results, logger: logger), devices: devices))
                }
            })
    }

    /// `{"rejected": […]}`, or the 502 of a push the upstream failed for another reason.
    private func answer(_ outcome: MatrixOutcome, devices: Int) -> Response {
        switch outcome {
        case .answered(let rejected, let firstReason):
            answers?.record(status: 200, devices: devices, rejected: rejected.count, firstReason ?? "")
            return .json(200, JSONValue.object(["rejected": .array(rejected.map(JSONValue.string))]).encoded())
        case .failed(let refusal):
            answers?.record(status: refusal.status, devices: devices, refusal.message)
            return refusal.response.noted(refusal.message)
        }
    }
}
