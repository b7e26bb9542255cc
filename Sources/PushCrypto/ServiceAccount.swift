import PushCore

/// A Google service account, read from the JSON file the Cloud console issues; it signs the
/// RS256 assertions exchanged at `token_uri` for the OAuth access tokens FCM v1 requires.
public struct ServiceAccount: Sendable, CustomStringConvertible {
    public let projectID: String
    public let clientEmail: String
    public let tokenURI: String
    /// Optional in the file; sent as the assertion's `kid` when present.
    public let privateKeyID: String?
    public let privateKey: RSASigningKey

    /// The OAuth scope FCM HTTP v1 sends under.
    public static let firebaseMessagingScope = "https://www.googleapis.com/auth/firebase.messaging"

    /// How long an assertion is valid; Google accepts at most one hour.
    public static let assertionLifetime = 3600

    public init(json: String) throws(ServiceAccountError) {
        try self.init(jsonBytes: Array(json.utf8))
    }

    public init(jsonBytes: [UInt8]) throws(ServiceAccountError) {
        let document: JSONValue
        do {
            document = try JSONValue.parse(jsonBytes)
        } catch {
            throw .notJSON
        }
        guard let fields = document.objectValue else { throw .notAnObject }
        let type = try Self.requiredString("type", in: fields)
        guard type == "service_account" else { throw .wrongType(type) }
        projectID = try Self.requiredString("project_id", in: fields)
        clientEmail = try Self.requiredString("client_email", in: fields)
        tokenURI = try Self.requiredString("token_uri", in: fields)
        guard tokenURI.hasPrefix("https://") || tokenURI.hasPrefix("http://") else {
            throw .invalidField("token_uri", reason: "is not an http(s) URL")
        }
        privateKeyID = try Self.optionalString("private_key_id", in: fields)
        let pem = try Self.requiredString("private_key", in: fields)
        do {
            privateKey = try RSASigningKey(pem: pem)
        } catch {
            throw .invalidPrivateKey(error)
        }
    }

    /// The signed JWT for the OAuth 2.0 JWT-bearer grant (RFC 7523): `iss` the account,
    /// `aud` the token URI, valid for an hour from `issuedAt` (seconds since 1970).
    /// (developers.google.com/identity/protocols/oauth2/service-account, "Creating a JWT".)
    public func assertion(scope: String, issuedAt: Int) throws(CryptoError) -> String {
        var header: [String: JSONValue] = ["typ": .string("JWT")]
        if let privateKeyID { header["kid"] = .string(privateKeyID) }
        return try JWT.sign(
            header: header,
            claims: [
                "iss": .string(clientEmail),
                "scope": .string(scope),
                "aud": .string(tokenURI),
                "iat": .number(Double(issuedAt)),
                "exp": .number(Double(issuedAt + Self.assertionLifetime)),
            ],
            using: privateKey)
    }

    /// Names the account without its key: descriptions reach logs.
    public var description: String {
        "ServiceAccount(\(clientEmail), project \(projectID))"
    }

    private static func requiredString(_ name: String, in fields: [String: JSONValue]) throws(ServiceAccountError)
        -> String
    {
        guard let value = try optionalString(name, in: fields) else { throw .missingField(name) }
        return value
    }

    private static func optionalString(_ name: String, in fields: [String: JSONValue]) throws(ServiceAccountError)
        -> String?
    {
        guard let value = fields[name], !value.isNull else { return nil }
        guard let text = value.stringValue else { throw .invalidField(name, reason: "is not a string") }
        guard !text.isEmpty else { throw .invalidField(name, reason: "is empty") }
        return text
    }
}
