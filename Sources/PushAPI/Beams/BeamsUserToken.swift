import PushCore

/// Checks the Beams token of `PUT …/devices/{platform}/{id}/user`: an HS256 JWT a server SDK
/// (`generateToken`) signed with the key it publishes with. Here that is any sender key that
/// keeps its secret and may send to the instance through Beams: its whole instance (every
/// app), the beams dialect. The user is the token's `sub`.
///
/// Statuses as Beams answers and the SDKs act on them: 401/403 make iOS and Android report a
/// rejected token (no retry), 400 a bad request; no description names a "device token",
/// which iOS would read as a bad APNs token instead.
struct BeamsUserToken {
    static let maximumUserIDLength = 164

    private let secrets: any BeamsTokenSecretStore
    /// The claims of a token whose HS256 signature is the secret's, nil otherwise
    /// (PushCrypto's `HS256.verifiedClaims`; PushAPI sees no crypto library).
    private let verifiedClaims: @Sendable (_ token: String, _ secret: String) -> [String: JSONValue]?
    /// Unix seconds.
    private let now: @Sendable () -> Int64

    init(
        secrets: any BeamsTokenSecretStore,
        verifiedClaims: @escaping @Sendable (_ token: String, _ secret: String) -> [String: JSONValue]?,
        now: @escaping @Sendable () -> Int64
    ) {
        self.secrets = secrets
        self.verifiedClaims = verifiedClaims
        self.now = now
    }

    /// The user id the request's token names for `instance`, or why not.
    func userID(of request: Request, instance: BeamsInstance) throws -> String {
        guard let header = request.header("authorization") else {
            throw BeamsError.unauthorized("`Authorization` header token is missing.")
        }
        guard case .bearer(let token)? = HTTPAuthorization(header: header) else {
            throw BeamsError.unauthorized("`Authorization` header token is malformed: send Bearer <Beams token>.")
        }
        let appIDs = instance.apps.map(\.id)
        let candidates = try secrets.beamsTokenSecrets().filter {
            $0.key.scope.allows(.beams) && $0.key.scope.outside(appIDs).isEmpty
        }
        guard let claims = candidates.lazy.compactMap({ verifiedClaims(token, $0.secret) }).first else {
            throw BeamsError.unauthorized(
                candidates.isEmpty
                    ? "No sender key here can verify Beams tokens for this instance: sign them with a key made by "
                        + "pushgate keys add (keys made before pushgate kept secrets cannot) that may send to all of "
                        + "its apps through beams."
                    : "The JWT's signature matches no sender key that may send to this instance.")
        }
        guard let expiry = claims["exp"]?.numberValue else {
            throw BeamsError.invalidField("Missing expiration (exp) field in JWT")
        }
        guard let subject = claims["sub"] else { throw BeamsError.invalidField("Missing subject (sub) field in JWT") }
        guard let userID = subject.stringValue, (1...Self.maximumUserIDLength).contains(userID.count),
            !userID.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F })
        else {
            throw BeamsError.invalidField(
                "JWT subject (sub) must be between 1-164 characters long (a string without control characters)")
        }
        guard let issuer = claims["iss"] else { throw BeamsError.invalidField("Missing issuer (iss) field in JWT") }
        // The SDKs' issuer whatever endpoint they were pointed at.
        guard issuer.stringValue == "https://\(instance.appKey).pushnotifications.pusher.com" else {
            throw BeamsError.forbidden("Invalid JWT issuer.")
        }
        guard expiry > Double(now()) else { throw BeamsError.unauthorized("The JWT has expired (exp).") }
        return userID
    }
}
