import Foundation
import PushCore

/// The Acrobits HTTP push gateway (pnm2): a PBX posts pushes as JSON to `/pnm2/send` or
/// `/pnm2/multisend` (or form fields to the old `/pnm2`), pushgate sends them while the
/// caller waits and answers each with the document's `{"code", "response"}`. The sends run in
/// the upstream lane, so callers waiting on a slow APNs/FCM never hold the responder threads.
public struct Pnm2Gateway: LaneAssigning {
    public static let prefix = "/pnm2"
    /// A multisend longer than this is refused whole: one request must not hold a responder
    /// thread (and the caller) for minutes.
    public static let maximumPushesPerRequest = 5000

    private let senders: SenderAuthorization
    private let dispatch: Pnm2Dispatch

    /// - Parameter deliverer: the process's deliverer wrapped in a `PruningDeliverer`, so a
    ///   dead token prunes its stored device.
    public init(
        apps: any AppCatalog, directory: any AcrobitsPushDirectory, deliverer: any Deliverer,
        senders: SenderAuthorization, pause: @escaping @Sendable (Double) -> Void = Pnm2Gateway.sleep
    ) {
        self.senders = senders
        dispatch = Pnm2Dispatch(apps: apps, directory: directory, deliverer: deliverer, pause: pause)
    }

    @Sendable public static func sleep(_ seconds: Double) {
        guard seconds > 0 else { return }
        Thread.sleep(forTimeInterval: seconds)
    }

    /// Over the server's body limit: pnm2's reply shape, which a PBX script parses.
    public func bodyTooLarge(_ request: Request, bytes: Int, limit: Int) -> Response {
        Self.refusal(413, "request body too large: \(bytes) bytes, the limit is \(limit)")
    }

    public func handle(_ request: Request) -> Response {
        guard let endpoint = Pnm2Endpoint(path: request.path) else {
            return Self.refusal(404, "no pnm2 endpoint at \(request.path): use /pnm2/send or /pnm2/multisend")
        }
        // The method first: a wrong one is wrong whoever asks, and a client that sent no
        // credentials (a CORS preflight's OPTIONS, say) learns what to fix, not a 401.
        // The document answers a wrong method with 400 Bad Request; Allow still says what works.
        guard request.method == "POST" else {
            return Self.refusal(400, "use POST", headers: [("Allow", "POST")])
        }
        switch senders.authorize(request) {
        case .allowed: break
        case .unauthorized(let reason):
            return Self.refusal(401, reason, headers: [("WWW-Authenticate", SenderAuthorization.challenge)])
        case .forbidden(let reason):
            return Self.refusal(403, reason)
        case .unavailable(let error):
            return Self.internalError(error)
        }
        do {
            switch endpoint {
            case .send:
                let entry = try Pnm2Body.single(request)
                let reply = try dispatch.send([entry], deadToken: endpoint.deadToken)[0]
                return .json(200, Array(reply.json.utf8))
            case .multisend:
                let entries = try Pnm2Body.list(request, limit: Self.maximumPushesPerRequest)
                let replies = try dispatch.send(entries, deadToken: endpoint.deadToken)
                return .json(200, Array(Pnm2Reply.list(replies).utf8))
            case .form:
                let push = try Pnm2Body.form(request)
                let reply = try dispatch.send([.success(push)], deadToken: endpoint.deadToken)[0]
                return .json(reply.code, Array(reply.json.utf8))
            }
        } catch let refusal as Pnm2Reply {
            return .json(refusal.code, Array(refusal.json.utf8))
        } catch {
            return Self.internalError(error)
        }
    }

    /// What reaches APNs/FCM, a POST to one of the three addresses, waits in the upstream lane;
    /// everything else is answered at once where it was read.
    public func lane(for request: Request) -> RequestLane? {
        request.method == "POST" && Pnm2Endpoint(path: request.path) != nil ? .upstream : nil
    }

    /// The upstream lane had no room: a fault on our side that passes, so the document's
    /// service error (code 500), with `Retry-After` for callers that read it.
    public func busyResponse(for request: Request) -> Response {
        Self.refusal(500, Self.busyMessage, headers: [("Retry-After", "1")])
    }

    /// The busy answer's `response`: a PBX script may match it to retry.
    public static let busyMessage = "Push service busy"

    static func refusal(_ status: Int, _ message: String, headers: [(name: String, value: String)] = []) -> Response {
        .json(status, Array(Pnm2Reply(code: status, response: message).json.utf8), headers: headers)
    }

    private static func internalError(_ error: any Error) -> Response {
        var response = refusal(500, "internal error")
        response.logNote = String(describing: error)
        return response
    }
}
