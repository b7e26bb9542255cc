import Foundation
import PushCore

/// The Acrobits HTTP push gateway (pnm2): a PBX posts pushes as JSON to `/pnm2/send` or
/// `/pnm2/multisend` (or form fields to the old `/pnm2`), pushgate sends them while the
/// caller waits and answers each with the document's `{"code", "response"}`.
public struct Pnm2Gateway: RequestHandler {
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

    public func handle(_ request: Request) -> Response {
        guard let endpoint = Pnm2Endpoint(path: request.path) else {
            return Self.refusal(404, "no pnm2 endpoint at \(request.path): use /pnm2/send or /pnm2/multisend")
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
        // The document answers a wrong method with 400 Bad Request; Allow still says what works.
        guard request.method == "POST" else {
            return Self.refusal(400, "use POST", headers: [("Allow", "POST")])
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

    static func refusal(_ status: Int, _ message: String, headers: [(name: String, value: String)] = []) -> Response {
        .json(status, Array(Pnm2Reply(code: status, response: message).json.utf8), headers: headers)
    }

    private static func internalError(_ error: any Error) -> Response {
        var response = refusal(500, "internal error")
        response.logNote = String(describing: error)
        return response
    }
}
