import NIOCore

/// Sits first in a connection's pipeline, before TLS, so that closing through it skips the TLS
/// handler's polite close_notify: with SO_LINGER 0 the peer sees a TCP RST, as when an upstream
/// crashes or a middlebox drops the connection. Inbound only (NIO wants a direction): raw TCP
/// reads pass it by, responses do not.
final class ConnectionResetter: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private var context: ChannelHandlerContext?

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
    }

    /// Resets the connection. Must be called on the channel's event loop.
    func reset() {
        guard let context else { return }
        if let provider = context.channel as? SocketOptionProvider {
            // Zero linger makes close() send RST and drop unsent data instead of a FIN.
            _ = provider.setSoLinger(NIOLinger(l_onoff: 1, l_linger: 0))
        }
        context.close(promise: nil)
    }
}
