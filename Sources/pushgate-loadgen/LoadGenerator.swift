import ArgumentParser
import Foundation
import Logging
import MockUpstream
import PushCore
import PushCrypto
import PushDelivery

/// `pushgate-loadgen`: drives pushgate's delivery engine at a mock APNs for `scripts/bench`,
/// and signs the provider token `h2load` needs to drive the same mock beside it. A
/// development tool: it signs with the repository's test key only.
@main
struct LoadGenerator: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pushgate-loadgen",
        abstract: "Benchmark pushgate's APNs delivery against a mock APNs (scripts/bench).",
        subcommands: [APNsLoad.self, ProviderToken.self])
}

/// The app every load run pushes for: the mock's fixture key and a fixed topic.
enum LoadFixture {
    static let topic = "com.example.pushgate"
    static let token = DeviceToken(bytes: Array(repeating: 0xA1, count: 32))

    static func app() throws -> RegisteredApp {
        RegisteredApp(
            id: AppID("com.example.pushgate")!,
            credentials: .apnsToken(
                teamID: MockFixtures.apnsTeamID, keyID: MockFixtures.apnsKeyID,
                privateKeyPEM: try MockFixtures.text(MockFixtures.apnsKeyFile)),
            apnsTopic: topic, apnsPushType: .alert, sandbox: false)
    }
}

/// The catalog of one fixed app: the load run measures delivery, not the store.
struct FixedCatalog: AppCatalog {
    let app: RegisteredApp
    func app(id: AppID) throws -> RegisteredApp? { id == app.id ? app : nil }
    func platform(of id: AppID) throws -> Platform? { id == app.id ? app.platform : nil }
    func apps() throws -> [RegisteredApp] { [app] }
    func addApp(_ app: RegisteredApp, replacing: Bool) throws { throw CleanExit.message("read-only catalog") }
    func removeApp(id: AppID) throws -> Bool { false }
}

struct APNsLoad: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apns",
        abstract: "Send --count alert pushes through the DeliveryPipeline, --rounds times; print the best round.")

    @Option(help: "The mock APNs, e.g. https://127.0.0.1:PORT.") var url: String
    @Option(help: "Pushes per round.") var count = 20_000
    @Option(help: "Rounds; the best is reported (the first also warms the connection).") var rounds = 3
    @Option(name: .customLong("in-flight"), help: "Transfers the engine keeps in flight.") var inFlight = 1000
    @Option(name: .customLong("ca-file"), help: "CA trusted for the mock (default: the test CA).") var caFile: String?
    @Option(help: "Engine threads (each its own curl multi handle and connection).") var threads = 1

    func run() throws {
        var logger = Logger(label: "loadgen")
        logger.logLevel = .warning
        var engineConfiguration = CurlEngineConfiguration(extraCAFile: caFile ?? MockFixtures.caFile)
        engineConfiguration.maxTransfersInFlight = inFlight
        engineConfiguration.threads = threads
        let engine = try CurlEngine(configuration: engineConfiguration, logger: logger)
        defer { engine.shutdown() }
        let pipeline = DeliveryPipeline(
            catalog: FixedCatalog(app: try LoadFixture.app()), transport: engine,
            configuration: DeliveryConfiguration(apns: APNsEndpoints(production: url, sandbox: url)),
            providerTokens: ProviderTokenCache(), accessTokens: AccessTokenCache(transport: engine, logger: logger),
            logger: logger)
        let push = Notification(
            appID: try LoadFixture.app().id, token: LoadFixture.token,
            apns: APNsMessage(payload: Array(#"{"aps":{"alert":"bench"}}"#.utf8)))
        let warm = pipeline.deliver([push])
        guard warm.first?.isDelivered == true else {
            throw ValidationError("the mock did not accept a push: \(warm.first.map { "\($0)" } ?? "no result")")
        }
        var best = 0.0
        for round in 1...rounds {
            let started = Date()
            let results = pipeline.deliver(Array(repeating: push, count: count))
            let seconds = Date().timeIntervalSince(started)
            let delivered = results.filter(\.isDelivered).count
            guard delivered == count else {
                throw ValidationError("round \(round): only \(delivered) of \(count) delivered")
            }
            let rate = Double(count) / seconds
            best = max(best, rate)
            FileHandle.standardError.write(
                Data("round \(round): \(count) pushes in \(String(format: "%.3f", seconds)) s = \(Int(rate))/s\n".utf8))
        }
        // One line for the bench script: best pushes/s and the connections the engine opened.
        print("\(Int(best)) \(engine.statistics.connectionsOpened)")
    }
}

struct ProviderToken: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "provider-token", abstract: "Print a provider JWT the mock APNs accepts (for h2load).")

    func run() throws {
        let key = try APNsSigningKey(pem: try MockFixtures.text(MockFixtures.apnsKeyFile))
        print(
            try APNsProviderToken.sign(
                keyID: MockFixtures.apnsKeyID, teamID: MockFixtures.apnsTeamID,
                issuedAt: Int(Date().timeIntervalSince1970), key: key))
    }
}
