import PushCore

/// Who may read the operator's pages (`/metrics`, `/status`): a caller on this machine, or
/// one presenting a valid sender key (`Authorization: Bearer KEY`, or HTTP Basic with the key
/// as password, as the send side takes it), so that Prometheus on another host can scrape.
/// Phones have neither. "This machine" is the peer nginx saw (`REMOTE_ADDR`), never a header
/// the client wrote (`X-Forwarded-For` is the client's word): behind another proxy on the
/// same host every client would look local, so that proxy must not forward to these paths.
public struct OperatorAccess: Sendable {
    public enum Decision: Sendable {
        /// `who` is "loopback" or the sender key's name.
        case allowed(who: String)
        /// 403, with a reason safe to show the caller.
        case refused(reason: String)
        /// The key store could not be read.
        case unavailable(any Error)
    }

    private let keys: any SenderKeyStore
    private let digest: @Sendable (String) -> String

    /// - Parameter digest: what the store keeps of a key (PushCrypto's `SenderKeyMaterial.digest`).
    public init(keys: any SenderKeyStore, digest: @escaping @Sendable (String) -> String) {
        self.keys = keys
        self.digest = digest
    }

    public func check(_ request: Request) -> Decision {
        if request.isFromLoopback { return .allowed(who: "loopback") }
        guard let presented = SenderAuthorization.presentedKey(request) else {
            return .refused(reason: "only this machine, or a caller with a sender key, may read this page")
        }
        do {
            guard let name = try keys.senderKeyName(digest: digest(presented)) else {
                return .refused(reason: "the sender key is not valid")
            }
            return .allowed(who: name)
        } catch {
            return .unavailable(error)
        }
    }
}

/// A page for the operator only: `OperatorAccess` decides, and a refusal is a plain 403
/// before the page does any work.
public struct OperatorOnly: RequestHandler {
    private let access: OperatorAccess
    private let page: any RequestHandler

    public init(access: OperatorAccess, page: any RequestHandler) {
        self.access = access
        self.page = page
    }

    public func handle(_ request: Request) -> Response {
        switch access.check(request) {
        case .allowed:
            return page.handle(request)
        case .refused(let reason):
            return .text(403, reason)
        case .unavailable(let error):
            return .internalError(error)
        }
    }
}
