import ArgumentParser
import Foundation
import MockUpstream

/// `pushgate-mock webpush`: a mock Web Push service that creates subscriptions, decrypts what
/// it receives with their keys and prints each plaintext.
struct WebPushCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "webpush",
        abstract: "Mock Web Push service (POST /push/ID): checks VAPID, decrypts and prints each message.")

    @OptionGroup var server: ServerOptions
    @OptionGroup var failures: FaultOptions

    @Option(help: "Subscriptions to create at start; each is printed as W3C PushSubscription JSON.")
    var subscriptions = 1

    @Option(help: "Subscriptions to create already gone (answered 410), printed the same way.")
    var goneSubscriptions = 0

    func validate() throws {
        guard subscriptions >= 0, goneSubscriptions >= 0 else {
            throw ValidationError("--subscriptions and --gone-subscriptions cannot be negative")
        }
        guard failures.tokens.isEmpty else {
            throw ValidationError(
                "--fail-token: subscription ids are made at start; use --fail-next or --gone-subscriptions")
        }
    }

    func run() throws {
        var configuration = MockWebPushConfiguration()
        server.apply(to: &configuration)
        configuration.onMessage = { message in
            say("message \(message.subscriptionID) ttl=\(message.ttl) \(message.text)")
        }

        TerminationSignals.block()
        let push = try MockWebPush(configuration: configuration)
        // validate() refused --fail-token.
        try failures.inject(next: { push.inject($0, forNext: $1) }, token: { _, _ in })
        say("listening on \(configuration.host):\(push.port)")
        for index in 0..<(subscriptions + goneSubscriptions) {
            let subscription = try push.createSubscription()
            if index >= subscriptions { push.markGone(subscription) }
            say("\(index >= subscriptions ? "gone-subscription" : "subscription") \(subscription.json)")
        }
        let signal = TerminationSignals.wait()
        push.shutdown()
        say("webpush stopping on signal \(signal): \(push.log.counters), messages \(push.messages.count)")
    }
}
