import Logging
import PushCore

/// The Acrobits Account Removal Reporter: the app reports a log-out or account removal, and
/// every token stored for the account's selector is forgotten. Takes the same parameter styles
/// as the Token Reporter (query, form, JSON, `/removeAccount/<username>/`).
public struct AccountRemovalReporter: DialectHandler {
    public var errors: any ErrorRenderer { ReporterErrors() }

    private let accounts: any AcrobitsAccountStore

    public static let prefix = "/removeAccount"

    public init(accounts: any AcrobitsAccountStore) {
        self.accounts = accounts
    }

    public func respond(to request: Request, logger: Logger) throws -> Response {
        guard request.method == "GET" || request.method == "POST" else {
            throw ReporterError.methodNotAllowed(request.method)
        }
        guard request.body.count <= TokenReporter.bodyLimit else {
            throw ReporterError.bodyTooLarge(limit: TokenReporter.bodyLimit)
        }
        let pathValues = try ReporterPath.usernameStyle(request.path, prefix: Self.prefix)
        let account = try AccountFields(try ReporterParameters(request: request, pathValues: pathValues))
        _ = try accounts.removeAccount(selector: account.selector)
        return .emptyOK
    }

}
