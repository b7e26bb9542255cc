import ArgumentParser
import Foundation
import MockUpstream

/// `pushgate-mock fcm`: a mock FCM HTTP v1 with its OAuth token endpoint.
struct FCMCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fcm", abstract: "Mock FCM HTTP v1 and OAuth token endpoint (POST /token).")

    @OptionGroup var server: ServerOptions
    @OptionGroup var failures: FaultOptions

    @Option(help: "Firebase project id sends must name (default: pushgate-test).")
    var projectID: String?

    @Option(help: "Service account client_email (default: the fixture's).")
    var clientEmail: String?

    @Option(help: "RSA public key (PEM) of the service account (default: the fixture rsa-2048).")
    var publicKey: String?

    @Option(help: "expires_in of issued access tokens, seconds.")
    var tokenLifetime = 3599

    func run() throws {
        var configuration = MockFCMConfiguration()
        server.apply(to: &configuration)
        configuration.serviceAccounts = [
            MockFCMServiceAccount(
                clientEmail: clientEmail ?? MockFixtures.serviceAccountEmail,
                projectID: projectID ?? MockFixtures.firebaseProjectID,
                publicKeyPEM: try MockFixtures.text(publicKey ?? MockFixtures.serviceAccountPublicKeyFile))
        ]
        configuration.accessTokenLifetime = tokenLifetime

        TerminationSignals.block()
        let fcm = try MockFCM(configuration: configuration)
        try failures.inject(next: { fcm.inject($0, forNext: $1) }, token: { fcm.inject($0, forToken: $1) })
        say("listening on \(configuration.host):\(fcm.port)")
        say("token_uri \(fcm.tokenURI)")
        let signal = TerminationSignals.wait()
        fcm.shutdown()
        say("fcm stopping on signal \(signal): \(fcm.log.counters)")
        say(
            "connections \(fcm.connectionCount), token requests \(fcm.tokenRequestCount), "
                + "access tokens issued \(fcm.accessTokensIssued)")
    }
}
