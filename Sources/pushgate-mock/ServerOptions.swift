import ArgumentParser
import Foundation
import MockUpstream

/// Options every mock takes: where to listen and with which TLS identity.
struct ServerOptions: ParsableArguments {
    @Option(help: "Address to listen on.")
    var host = "127.0.0.1"

    @Option(help: "Port to listen on; 0 picks a free one (printed once listening).")
    var port = 0

    @Option(help: "Server certificate chain, PEM (default: the test fixture for 127.0.0.1/localhost).")
    var cert: String?

    @Option(help: "Server private key, PEM (default: the test fixture's).")
    var key: String?

    @Option(help: "Event-loop threads (default: one per core).")
    var threads: Int?

    @Option(help: "SETTINGS_MAX_CONCURRENT_STREAMS advertised per connection.")
    var maxConcurrentStreams = 1000

    /// Sets these options in a mock's configuration, which records no requests: a long run
    /// needs counters, not a list.
    func apply(to configuration: inout some MockServerConfiguration, clientCA: String? = nil) {
        configuration.host = host
        configuration.port = port
        configuration.tls = MockTLSConfiguration(
            certificateChainFile: cert ?? MockFixtures.tls("server.pem"),
            privateKeyFile: key ?? MockFixtures.tls("server.key"), clientCAFile: clientCA)
        configuration.recordRequests = false
        configuration.maxConcurrentStreams = maxConcurrentStreams
        configuration.eventLoopThreads = threads ?? ProcessInfo.processInfo.activeProcessorCount
    }
}

/// Writes a line to stdout unbuffered: the bench script waits for "listening on" on a pipe,
/// where print's buffer would hold it back.
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}
