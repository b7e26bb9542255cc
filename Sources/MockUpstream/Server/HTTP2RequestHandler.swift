import NIOCore
import NIOHPACK
import NIOHTTP2

/// Serves HTTP/2 at the frame level, on the connection itself: one `[stream: request]` table
/// instead of a child channel per stream, because the benchmark pushes tens of thousands of
/// streams a second through one connection and a channel per stream would be the bottleneck.
/// Without a stream multiplexer nobody else returns flow-control credit, so this handler does.
final class HTTP2RequestHandler: ChannelInboundHandler {
    typealias InboundIn = HTTP2Frame
    typealias OutboundOut = HTTP2Frame

    private struct PendingRequest {
        var request: MockHTTPRequest
        /// DATA bytes received on the stream and not yet given back by WINDOW_UPDATE.
        var unacknowledgedBytes = 0
    }

    /// Give back window credit once this much is consumed: half the 65,535-byte default, so a
    /// sender never stalls on a window the server has already drained.
    private static let windowUpdateThreshold = 32_768

    private let responder: any MockResponder
    private let connection: ConnectionInfo
    private let maxBodyBytes: Int
    private var pending: [HTTP2StreamID: PendingRequest] = [:]
    private var unacknowledgedConnectionBytes = 0
    private var needsFlush = false
    private var closing = false

    init(responder: any MockResponder, connection: ConnectionInfo, maxBodyBytes: Int) {
        self.responder = responder
        self.connection = connection
        self.maxBodyBytes = maxBodyBytes
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        switch frame.payload {
        case .headers(let headers):
            receivedHeaders(headers, on: frame.streamID, context: context)
        case .data(let data):
            receivedData(data, on: frame.streamID, context: context)
        case .rstStream:
            pending[frame.streamID] = nil
        default:
            // SETTINGS, PING, WINDOW_UPDATE, GOAWAY: NIOHTTP2Handler has already acted on them.
            break
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        // One flush per read batch: many streams' answers share a TLS record and a write(2).
        if needsFlush {
            needsFlush = false
            context.flush()
        }
        context.fireChannelReadComplete()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // Stream-level errors (a client resetting a stream we still answer) are routine here;
        // NIOHTTP2Handler has already reset the stream. Anything else ends the connection.
        if error is NIOHTTP2Errors.NoSuchStream || error is NIOHTTP2Errors.StreamClosed
            || error is NIOHTTP2Errors.StreamError
        {
            return
        }
        context.close(promise: nil)
    }

    private func receivedHeaders(
        _ headers: HTTP2Frame.FramePayload.Headers, on streamID: HTTP2StreamID, context: ChannelHandlerContext
    ) {
        if pending[streamID] == nil {
            pending[streamID] = PendingRequest(request: makeRequest(headers.headers))
        }
        // A second HEADERS frame is a trailer block: nothing in it matters to the mocks.
        if headers.endStream { complete(streamID, context: context) }
    }

    private func receivedData(
        _ data: HTTP2Frame.FramePayload.Data, on streamID: HTTP2StreamID, context: ChannelHandlerContext
    ) {
        guard case .byteBuffer(var buffer) = data.data else { return }
        let flowControlled = buffer.readableBytes + (data.paddingBytes.map { $0 + 1 } ?? 0)
        returnConnectionCredit(flowControlled, context: context)
        guard var entry = pending[streamID] else { return }
        entry.request.appendBody(&buffer, limit: maxBodyBytes)
        if data.endStream {
            pending[streamID] = entry
            complete(streamID, context: context)
            return
        }
        entry.unacknowledgedBytes += flowControlled
        if entry.unacknowledgedBytes >= Self.windowUpdateThreshold {
            context.write(
                wrapOutboundOut(
                    HTTP2Frame(
                        streamID: streamID, payload: .windowUpdate(windowSizeIncrement: entry.unacknowledgedBytes))),
                promise: nil)
            entry.unacknowledgedBytes = 0
            needsFlush = true
        }
        pending[streamID] = entry
    }

    private func returnConnectionCredit(_ bytes: Int, context: ChannelHandlerContext) {
        unacknowledgedConnectionBytes += bytes
        guard unacknowledgedConnectionBytes >= Self.windowUpdateThreshold else { return }
        context.write(
            wrapOutboundOut(
                HTTP2Frame(
                    streamID: .rootStream, payload: .windowUpdate(windowSizeIncrement: unacknowledgedConnectionBytes))),
            promise: nil)
        unacknowledgedConnectionBytes = 0
        needsFlush = true
    }

    private func makeRequest(_ block: HPACKHeaders) -> MockHTTPRequest {
        var method = ""
        var path = ""
        var authority: String?
        var headers = MockHeaders()
        for (name, value, _) in block {
            switch name {
            case ":method": method = value
            case ":path": path = value
            case ":authority": authority = value
            case ":scheme": break
            default: headers.append(name: name, value: value)
            }
        }
        return MockHTTPRequest(
            method: method, path: path, authority: authority, headers: headers, httpVersion: "2",
            connection: connection)
    }

    private func complete(_ streamID: HTTP2StreamID, context: ChannelHandlerContext) {
        guard let entry = pending.removeValue(forKey: streamID), !closing else { return }
        switch responder.reply(to: entry.request) {
        case .respond(let response, nil):
            write(response, on: streamID, context: context)
            needsFlush = true
        case .respond(let response, let delay?):
            context.eventLoop.assumeIsolated().scheduleTask(in: TimeAmount(delay)) {
                self.write(response, on: streamID, context: context)
                context.flush()
            }
        case .resetConnection:
            closing = true
            (try? context.pipeline.syncOperations.handler(type: ConnectionResetter.self))?.reset()
        case .goAway(let debugData):
            closing = true
            // The stream before this one is the last "processed": this request was not, so a
            // client may send it again on a new connection (RFC 9113 §6.8).
            let lastProcessed = HTTP2StreamID(max(0, Int(Int32(streamID)) - 2))
            let frame = HTTP2Frame(
                streamID: .rootStream,
                payload: .goAway(
                    lastStreamID: lastProcessed, errorCode: .noError,
                    opaqueData: context.channel.allocator.buffer(bytes: debugData)))
            context.writeAndFlush(wrapOutboundOut(frame)).assumeIsolated().whenComplete { _ in
                context.close(promise: nil)
            }
        }
    }

    private func write(_ response: MockHTTPResponse, on streamID: HTTP2StreamID, context: ChannelHandlerContext) {
        var headers = HPACKHeaders()
        headers.reserveCapacity(response.headers.count + 2)
        headers.add(name: ":status", value: String(response.status))
        for header in response.headers {
            // Values that differ per response (apns-id, …) would only churn both HPACK tables
            // and cost a table search each; only the constant content-type is worth indexing.
            headers.add(
                name: header.name, value: header.value,
                indexing: header.name == "content-type" ? .indexable : .nonIndexable)
        }
        if response.body.isEmpty {
            context.write(
                wrapOutboundOut(
                    HTTP2Frame(streamID: streamID, payload: .headers(.init(headers: headers, endStream: true)))),
                promise: nil)
            return
        }
        headers.add(name: "content-length", value: String(response.body.count))
        context.write(
            wrapOutboundOut(HTTP2Frame(streamID: streamID, payload: .headers(.init(headers: headers)))), promise: nil)
        let body = context.channel.allocator.buffer(bytes: response.body)
        context.write(
            wrapOutboundOut(
                HTTP2Frame(streamID: streamID, payload: .data(.init(data: .byteBuffer(body), endStream: true)))),
            promise: nil)
    }
}
