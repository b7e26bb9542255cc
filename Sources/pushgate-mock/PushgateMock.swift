import ArgumentParser

/// `pushgate-mock`: the mock APNs and FCM servers of `MockUpstream`, for `scripts/bench` and for
/// trying a client by hand. Never shipped.
@main
struct PushgateMock: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pushgate-mock",
        abstract: "Run a mock APNs, FCM or Web Push server (test-only TLS identity) until SIGTERM or SIGINT.",
        subcommands: [APNsCommand.self, FCMCommand.self, WebPushCommand.self])
}
