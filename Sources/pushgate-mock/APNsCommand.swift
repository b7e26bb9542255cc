import ArgumentParser
import Foundation
import MockUpstream

/// `pushgate-mock apns`: a mock APNs provider API.
struct APNsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apns", abstract: "Mock APNs: HTTP/2 over TLS, POST /3/device/<token>.")

    @OptionGroup var server: ServerOptions
    @OptionGroup var failures: FaultOptions

    @Option(help: "Team id provider tokens must name as iss (default: the fixture's, TEAM123456).")
    var teamID: String?

    @Option(help: "Key id (kid) of --public-key (default: the fixture's, TEST123456).")
    var keyID: String?

    @Option(help: "EC P-256 public key (PEM) verifying provider tokens (default: the fixture AuthKey_TEST123456).")
    var publicKey: String?

    @Flag(help: "Play the sandbox environment instead of production.")
    var sandbox = false

    @Option(help: "CA (PEM) whose client certificates are accepted for certificate-based auth.")
    var clientCA: String?

    @Option(name: .customLong("topic"), help: "A topic token-auth requests may use (repeatable; default: any).")
    var topics: [String] = []

    @Option(help: "Seconds a new provider token per key must wait after the previous one (Apple: 1200).")
    var tokenUpdateInterval = 1200

    @Flag(help: "Skip the per-request check that payloads are JSON objects.")
    var noJsonCheck = false

    @Option(help: "Milliseconds every answer waits, as a slow APNs (default: 0, answer at once).")
    var answerDelayMs = 0

    func run() throws {
        var configuration = MockAPNsConfiguration()
        server.apply(to: &configuration, clientCA: clientCA)
        configuration.environment = sandbox ? .sandbox : .production
        configuration.providerKeys = [
            MockAPNsProviderKey(
                keyID: keyID ?? MockFixtures.apnsKeyID, teamID: teamID ?? MockFixtures.apnsTeamID,
                publicKeyPEM: try MockFixtures.text(publicKey ?? MockFixtures.apnsPublicKeyFile))
        ]
        configuration.allowedTopics = topics.isEmpty ? nil : Set(topics)
        configuration.providerTokenUpdateInterval = .seconds(tokenUpdateInterval)
        configuration.validatesPayloadJSON = !noJsonCheck

        TerminationSignals.block()
        let apns = try MockAPNs(configuration: configuration)
        try failures.inject(next: { apns.inject($0, forNext: $1) }, token: { apns.inject($0, forToken: $1) })
        if answerDelayMs > 0 { apns.inject(.delay(.milliseconds(answerDelayMs)), forNext: .max) }
        say("listening on \(configuration.host):\(apns.port)")
        let signal = TerminationSignals.wait()
        apns.shutdown()
        say("apns (\(configuration.environment.rawValue)) stopping on signal \(signal): \(apns.log.counters)")
        say(
            "connections \(apns.connectionCount), provider tokens \(apns.providerTokenCounts), "
                + "token updates refused \(apns.providerTokenUpdatesRefused)")
    }
}
