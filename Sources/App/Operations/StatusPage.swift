import Foundation
import PushAPI
import PushCore

/// `GET /status`: the page an operator opens first when a customer says "my phone did not
/// ring". Server-rendered HTML with no external assets, readable on a phone, reloading itself
/// every 30 seconds; every value that came from outside is escaped. Behind `OperatorOnly`, on
/// a route of GET and HEAD.
struct StatusPage: DialectHandler {
    let store: any Store
    /// When this process started, for its uptime.
    let startedAt: Date
    /// The Matrix dialect's last answers in this process.
    var matrixAnswers: MatrixAnswerLog? = nil
    static let refreshSeconds = 30

    func respond(to request: Request, context: RequestContext) throws -> Response {
        let report: StatusReport
        do {
            report = try StatusReport.read(from: store)
        } catch {
            return .internalError(error)
        }
        let html = StatusHTML(
            report: report, startedAt: startedAt, refreshSeconds: Self.refreshSeconds,
            matrixAnswers: matrixAnswers?.recent ?? []
        ).render()
        return Response(
            status: 200,
            headers: [("Content-Type", "text/html; charset=utf-8"), ("Cache-Control", "no-store")],
            body: request.method == "HEAD" ? [] : Array(html.utf8))
    }
}
