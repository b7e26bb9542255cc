import PushCore

/// Who may read the operator's pages (`/metrics`, `/status`). Once a valid operator key
/// exists (`pushgate keys add NAME --operator`), only a caller presenting one
/// (`Authorization: Bearer KEY`, or HTTP Basic with the key as password, as the send side
/// takes it), from loopback too: a local user who can reach nginx, or speak FastCGI to the
/// socket, must not read them. Before that, a caller on this machine only, and no sender key
/// opens them: a PBX's key is not an operator's.
/// "This machine" is the peer nginx saw (`REMOTE_ADDR`), never a header the client wrote
/// (`X-Forwarded-For` is the client's word): behind another proxy on the same host every
/// client would look local, so that proxy must not forward to these paths.
public struct OperatorAccess: Sendable {
    public enum Decision: Sendable {
        /// `who` is "loopback" or the operator key's name.
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
        do {
            guard try keys.hasValidOperatorKeys() else {
                if request.isFromLoopback { return .allowed(who: "loopback") }
                return .refused(
                    reason:
                        "only this machine may read this page until an operator key exists (pushgate keys add NAME --operator)"
                )
            }
            guard let presented = SenderAuthorization.presentedKey(request) else {
                return .refused(reason: "an operator key is required (Authorization: Bearer KEY)")
            }
            guard let key = try keys.validSenderKey(digest: digest(presented)), key.scope.isOperator else {
                return .refused(reason: "the key is not a valid operator key")
            }
            return .allowed(who: key.name)
        } catch {
            return .unavailable(error)
        }
    }
}

/// A page for the operator only: `OperatorAccess` decides, and a refusal is a plain 403
/// before the page does any work, a wrong method's 405 included.
public struct OperatorOnly: DialectHandler {
    private let access: OperatorAccess
    private let page: any DialectHandler

    public init(access: OperatorAccess, page: any DialectHandler) {
        self.access = access
        self.page = page
    }

    /// The caller first, then the page's own address check (`/metrics`'s path): both outrank
    /// a wrong method, which the route answers.
    public func checkAddress(_ request: Request, context: RequestContext) throws {
        switch access.check(request) {
        case .allowed: try page.checkAddress(request, context: context)
        case .refused(let reason): throw OperatorRefusal(.text(403, reason))
        case .unavailable(let error): throw OperatorRefusal(.internalError(error))
        }
    }

    public func respond(to request: Request, context: RequestContext) throws -> Response {
        try checkAddress(request, context: context)
        return try page.respond(to: request, context: context)
    }
}

/// An operator page's refusal, answered as written: plain text, in no dialect's shape.
public struct OperatorRefusal: DialectError {
    public let response: Response
    public init(_ response: Response) { self.response = response }
}
