import NIOCore
import NIOPosix
import NIOSSL

/// A TLS listener on its own event-loop group that hands every request, over HTTP/2 or
/// HTTP/1.1, to a `MockResponder`. `MockAPNs` and `MockFCM` each own one.
final class MockServer: Sendable {
    let port: Int
    private let group: MultiThreadedEventLoopGroup
    private let channel: any Channel
    private let connections: ConnectionCounter

    /// Bodies longer than this are cut (and flagged); the mocks refuse far smaller ones anyway.
    static let maxBodyBytes = 1 << 20

    /// `protocols`: the ALPN offers, in preference order. Without `http/1.1` a client that
    /// negotiates nothing is spoken to in HTTP/2 anyway (APNs is HTTP/2 only).
    init(serving settings: some MockServerConfiguration, protocols: [String], responder: any MockResponder) throws {
        let sslContext = try settings.tls.makeContext(protocols: protocols)
        let group = MultiThreadedEventLoopGroup(numberOfThreads: max(1, settings.eventLoopThreads))
        let connections = ConnectionCounter()
        let pipeline = ConnectionPipeline(
            sslContext: sslContext, responder: responder, acceptsHTTP1: protocols.contains("http/1.1"),
            maxConcurrentStreams: settings.maxConcurrentStreams, maxBodyBytes: Self.maxBodyBytes)
        do {
            channel = try ServerBootstrap(group: group)
                .serverChannelOption(.backlog, value: 512)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
                .childChannelOption(.maxMessagesPerRead, value: 16)
                .childChannelInitializer { channel in
                    pipeline.configure(channel, connectionID: connections.next())
                }
                .bind(host: settings.host, port: settings.port)
                .wait()
        } catch {
            try? group.syncShutdownGracefully()
            throw error
        }
        guard let port = channel.localAddress?.port else {
            try? group.syncShutdownGracefully()
            throw MockServerError.noLocalAddress
        }
        self.port = port
        self.group = group
        self.connections = connections
    }

    /// Connections accepted so far.
    var connectionCount: Int { connections.count }

    /// Closes the listener and every connection, and stops the threads. Blocks; never call it
    /// from an event-loop thread (a responder).
    func shutdown() {
        try? channel.close().wait()
        try? group.syncShutdownGracefully()
    }
}

enum MockServerError: Error {
    case noLocalAddress
}
