import Foundation

/// Why a Google service-account JSON file was refused, naming the field at fault.
public enum ServiceAccountError: Error, Equatable, Sendable {
    /// Not parseable as JSON, or not UTF-8.
    case notJSON
    /// JSON, but not an object.
    case notAnObject
    /// A required field is absent (or null).
    case missingField(String)
    /// A field that must be a non-empty string is something else.
    case invalidField(String, reason: String)
    /// `type` is not "service_account" (e.g. an "authorized_user" file from `gcloud auth`).
    case wrongType(String)
    /// `private_key` is present but cannot sign RS256.
    case invalidPrivateKey(CryptoError)
}

extension ServiceAccountError: CustomStringConvertible, LocalizedError {
    public var description: String {
        switch self {
        case .notJSON:
            return "service account file is not JSON"
        case .notAnObject:
            return "service account JSON is not an object"
        case .missingField(let field):
            return "service account JSON lacks \(field)"
        case .invalidField(let field, let reason):
            return "service account field \(field) \(reason)"
        case .wrongType(let type):
            return "service account JSON has type \"\(type)\", expected \"service_account\""
        case .invalidPrivateKey(let error):
            switch error {
            // These read as a sentence after the field name: "private_key is not an RSA key (found EC)".
            case .notPEM, .wrongKeyType:
                return "private_key is \(error)"
            default:
                return "private_key: \(error)"
            }
        }
    }

    public var errorDescription: String? { description }
}
