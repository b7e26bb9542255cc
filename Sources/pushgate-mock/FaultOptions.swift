import ArgumentParser
import MockUpstream

/// Failures to inject from the command line, for trying how pushgate answers a failing
/// upstream: `--fail-next 2:503:ServiceUnavailable` answers the next two requests 503, and
/// `--fail-token TOKEN:410:Unregistered` answers every request for that device token 410.
/// REASON is Apple's reason (APNs) or Google's error code (FCM), as `MockFault.status` takes it.
struct FaultOptions: ParsableArguments {
    @Option(name: .customLong("fail-next"), help: "COUNT:STATUS:REASON, the next COUNT requests (repeatable).")
    var next: [String] = []

    @Option(name: .customLong("fail-token"), help: "TOKEN:STATUS:REASON, every request for TOKEN (repeatable).")
    var tokens: [String] = []

    func validate() throws { try inject(next: { _, _ in }, token: { _, _ in }) }

    /// Hands each fault to `next` with its count of requests, then each to `token` with its
    /// device token.
    func inject(next inject: (MockFault, Int) -> Void, token injectForToken: (MockFault, String) -> Void) throws {
        for spec in next {
            let (head, fault) = try Self.parse(spec, option: "--fail-next")
            guard let count = Int(head), count > 0 else {
                throw ValidationError("--fail-next \(spec): COUNT must be a positive number")
            }
            inject(fault, count)
        }
        for spec in tokens {
            let (token, fault) = try Self.parse(spec, option: "--fail-token")
            injectForToken(fault, token)
        }
    }

    /// `HEAD:STATUS:REASON`, split from the right (a token has no colon, but be lenient).
    private static func parse(_ spec: String, option: String) throws -> (String, MockFault) {
        let parts = spec.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count >= 3, let status = Int(parts[parts.count - 2]), (400...599).contains(status),
            !parts[parts.count - 1].isEmpty
        else {
            throw ValidationError("\(option) \(spec): expected \(option == "--fail-next" ? "COUNT" : "TOKEN"):STATUS:REASON with STATUS 400-599")
        }
        let head = parts[0..<(parts.count - 2)].joined(separator: ":")
        return (head, .status(status, reason: String(parts[parts.count - 1])))
    }
}
