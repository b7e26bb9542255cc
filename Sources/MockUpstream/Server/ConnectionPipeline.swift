import NIOCore
import NIOHTTP1
import NIOHTTP2
import NIOSSL

/// Builds one accepted connection's pipeline: RST-capable closer, TLS, then HTTP/2 or HTTP/1.1
/// by ALPN, then the request handler that calls the responder.
struct ConnectionPipeline: Sendable {
    let sslContext: NIOSSLContext
    let responder: any MockResponder
    let acceptsHTTP1: Bool
    let maxConcurrentStreams: Int
    let maxBodyBytes: Int

    func configure(_ channel: any Channel, connectionID: Int) -> EventLoopFuture<Void> {
        do {
            let sync = channel.pipeline.syncOperations
            try sync.addHandler(ConnectionResetter())
            try sync.addHandler(NIOSSLServerHandler(context: sslContext))
        } catch {
            return channel.eventLoop.makeFailedFuture(error)
        }
        let http2: NIOChannelInitializer = { channel in configureHTTP2(channel, connectionID: connectionID) }
        return channel.configureHTTP2SecureUpgrade(
            h2ChannelConfigurator: http2,
            http1ChannelConfigurator: { channel in
                acceptsHTTP1 ? configureHTTP1(channel, connectionID: connectionID) : http2(channel)
            })
    }

    private func configureHTTP2(_ channel: any Channel, connectionID: Int) -> EventLoopFuture<Void> {
        channel.eventLoop.makeCompletedFuture {
            let sync = channel.pipeline.syncOperations
            try sync.addHandler(
                NIOHTTP2Handler(
                    mode: .server, connectionConfiguration: http2Connection, streamConfiguration: http2Streams))
            try sync.addHandler(
                HTTP2RequestHandler(
                    responder: responder, connection: try connectionInfo(sync, id: connectionID),
                    maxBodyBytes: maxBodyBytes))
        }
    }

    private func configureHTTP1(_ channel: any Channel, connectionID: Int) -> EventLoopFuture<Void> {
        channel.eventLoop.makeCompletedFuture {
            let sync = channel.pipeline.syncOperations
            try sync.configureHTTPServerPipeline(withErrorHandling: true)
            try sync.addHandler(
                HTTP1RequestHandler(
                    responder: responder, connection: try connectionInfo(sync, id: connectionID),
                    maxBodyBytes: maxBodyBytes))
        }
    }

    /// Called once the handshake is done: a peer certificate is present only when the client sent
    /// one and it verified against the client CA (otherwise the handshake failed).
    private func connectionInfo(_ sync: ChannelPipeline.SynchronousOperations, id: Int) throws -> ConnectionInfo {
        let tls = try sync.handler(type: NIOSSLServerHandler.self)
        return ConnectionInfo(id: id, hasVerifiedClientCertificate: tls.peerCertificate != nil)
    }

    private var http2Connection: NIOHTTP2Handler.ConnectionConfiguration {
        var configuration = NIOHTTP2Handler.ConnectionConfiguration()
        configuration.initialSettings = [
            HTTP2Setting(parameter: .maxConcurrentStreams, value: maxConcurrentStreams),
            HTTP2Setting(parameter: .maxHeaderListSize, value: 1 << 16),
        ]
        // A benchmark client cancels and opens streams by the thousand; the rapid-reset guards
        // are for hostile peers and would otherwise cut the connection mid-run.
        configuration.maximumConnectionGlitches = 1_000_000
        configuration.controlFrameRateLimit.maximumCount = 1_000_000
        configuration.maximumRecentlyResetStreams = 10_000
        return configuration
    }

    private var http2Streams: NIOHTTP2Handler.StreamConfiguration {
        var configuration = NIOHTTP2Handler.StreamConfiguration()
        configuration.streamResetFrameRateLimit.maximumCount = 1_000_000
        configuration.streamErrorRateLimit.maximumCount = 1_000_000
        return configuration
    }
}
