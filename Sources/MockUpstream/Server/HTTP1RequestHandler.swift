import NIOCore
import NIOHTTP1

/// Serves HTTP/1.1 (for clients that negotiate it, e.g. an OAuth library posting to the token
/// endpoint) by the same `MockResponder` as HTTP/2. Keep-alive and pipelining order come from
/// NIO's server pipeline in front of this handler.
final class HTTP1RequestHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let responder: any MockResponder
    private let connection: ConnectionInfo
    private let maxBodyBytes: Int
    private var request: MockHTTPRequest?
    private var keepAlive = true

    init(responder: any MockResponder, connection: ConnectionInfo, maxBodyBytes: Int) {
        self.responder = responder
        self.connection = connection
        self.maxBodyBytes = maxBodyBytes
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            var headers = MockHeaders()
            for (name, value) in head.headers where name.lowercased() != "host" {
                headers.append(name: name.lowercased(), value: value)
            }
            keepAlive = head.isKeepAlive
            request = MockHTTPRequest(
                method: head.method.rawValue, path: head.uri, authority: head.headers.first(name: "host"),
                headers: headers, httpVersion: "1.1", connection: connection)
        case .body(var buffer):
            request?.appendBody(&buffer, limit: maxBodyBytes)
        case .end:
            guard let complete = request else { return }
            request = nil
            answer(complete, context: context)
        }
    }

    private func answer(_ request: MockHTTPRequest, context: ChannelHandlerContext) {
        switch responder.reply(to: request) {
        case .respond(let response, nil):
            write(response, context: context)
        case .respond(let response, let delay?):
            context.eventLoop.assumeIsolated().scheduleTask(in: TimeAmount(delay)) {
                self.write(response, context: context)
            }
        case .resetConnection:
            (try? context.pipeline.syncOperations.handler(type: ConnectionResetter.self))?.reset()
        case .goAway:
            keepAlive = false
            write(MockHTTPResponse(status: 503), context: context)
        }
    }

    private func write(_ response: MockHTTPResponse, context: ChannelHandlerContext) {
        var headers = HTTPHeaders(response.headers.map { ($0.name, $0.value) })
        headers.replaceOrAdd(name: "content-length", value: String(response.body.count))
        if !keepAlive { headers.replaceOrAdd(name: "connection", value: "close") }
        let head = HTTPResponseHead(
            version: .http1_1, status: HTTPResponseStatus(statusCode: response.status), headers: headers)
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        if !response.body.isEmpty {
            context.write(
                wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: response.body)))),
                promise: nil)
        }
        let done = context.writeAndFlush(wrapOutboundOut(.end(nil)))
        if !keepAlive {
            done.assumeIsolated().whenComplete { _ in context.close(promise: nil) }
        }
    }
}
