import Logging
import PushCore

/// The Acrobits Account Removal Reporter: the app reports a log-out or account removal, and
/// every token stored for the account's selector is forgotten. Takes the same parameter styles
/// as the Token Reporter (query, form, JSON, `/removeAccount/<username>/`).
public struct AccountRemovalReporter: DialectHandler {
    public var routes: [Router.Route] { ReporterPath.routes(prefix: Self.prefix, self) }

    private let accounts: any AcrobitsAccountStore

    public static let prefix = "/removeAccount"

    public init(accounts: any AcrobitsAccountStore) {
        self.accounts = accounts
    }

    public func respond(to request: Request, context: RequestContext) throws -> Response {
        try ReporterPath.checkSize(request)
        let parameters = try ReporterParameters(request: request, path: context.parameters)
        let account = try AccountFields(parameters)
        _ = try accounts.removeAccount(selector: account.selector)
        return .emptyOK
    }
}
