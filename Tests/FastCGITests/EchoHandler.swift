import Foundation
import PushCore

/// What the echo handler saw, sent back as JSON.
struct Echo: Codable {
    var method: String
    var path: String
    var query: String
    var body: String
    var headers: [String: String]
    var remoteAddress: String
    var id: String
    var thread: Int
}

/// A handler for end-to-end tests: `/empty` answers 200 with no content type and no body,
/// `/slow` waits 300 ms first, everything else echoes the request as JSON.
struct EchoHandler: RequestHandler {
    let thread: Int

    func handle(_ request: Request) -> Response {
        switch request.path {
        case "/empty":
            return .emptyOK
        case "/slow":
            usleep(300_000)
            return .text(200, "slow")
        default:
            let echo = Echo(
                method: request.method, path: request.path, query: request.query,
                body: String(decoding: request.body, as: UTF8.self),
                headers: Dictionary(request.headers.map { ($0.name, $0.value) }) { first, _ in first },
                remoteAddress: request.remoteAddress, id: request.id, thread: thread)
            let body = (try? JSONEncoder().encode(echo)).map { Array($0) } ?? []
            return Response(
                status: 200, headers: [("Content-Type", "application/json"), ("X-Echo", "yes")], body: body)
        }
    }
}
