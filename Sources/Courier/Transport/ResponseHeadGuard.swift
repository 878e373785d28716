import NIOCore
import NIOHTTP1
import NIOHTTP2

/// A channel handler on every engine connection, between SwiftNIO's HTTP parser and
/// AsyncHTTPClient's own handler. It owns two facts about the response heads the engine sees:
///
/// - **The status code is an HTTP status.** SwiftNIO's parser accepts any three digits, and
///   AsyncHTTPClient 1.37 treats every code below 200 as an interim response: a `000` or `099`
///   followed by a body traps inside its state machine and kills the process. A head outside
///   100…599 is stopped here, before the engine sees it: the request fails with
///   ``InvalidResponseStatus`` and the connection is closed.
/// - **Whether a failure hit a stale connection.** When a kept-alive connection that already
///   carried a complete exchange is closed (or reset) after the next request was written but before
///   any byte of its response, the server cannot have processed that request — the classic race of a
///   server closing an idle connection just as the client reuses it. Such a failure is reported as
///   ``StaleConnectionError`` so the transport can send an idempotent request again on a new
///   connection, as browsers, curl and URLSession do.
///
/// On HTTP/2 it sits on each stream channel and checks only the status (a stream has no reuse).
final class ResponseHeadGuard: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias InboundOut = HTTPClientResponsePart
    typealias OutboundIn = HTTPClientRequestPart
    typealias OutboundOut = HTTPClientRequestPart

    private let detectsStaleConnections: Bool
    /// A refused head was seen: everything after it on this connection is dropped.
    private var refused = false
    /// Complete responses (final status and end) this connection has carried.
    private var completedResponses = 0
    /// A request head was written and no byte of its response has arrived.
    private var awaitingResponse = false
    /// The head being received is a final one (not 1xx), so its end completes an exchange.
    private var receivingFinalResponse = false

    /// - Parameter detectsStaleConnections: `true` on HTTP/1.1 connections.
    init(detectsStaleConnections: Bool) {
        self.detectsStaleConnections = detectsStaleConnections
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .head = unwrapOutboundIn(data) { awaitingResponse = true }
        context.write(data, promise: promise)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !refused else { return }
        switch unwrapInboundIn(data) {
        case .head(let head):
            awaitingResponse = false
            let code = Int(head.status.code)
            guard (100...599).contains(code) else {
                refused = true
                context.fireErrorCaught(InvalidResponseStatus(code: code))
                context.close(promise: nil)
                return
            }
            receivingFinalResponse = code >= 200
        case .body:
            break
        case .end:
            if receivingFinalResponse { completedResponses += 1 }
            receivingFinalResponse = false
        }
        context.fireChannelRead(data)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard !refused else { return }
        if failsStaleRequest() {
            context.fireErrorCaught(StaleConnectionError(underlying: error))
        } else {
            context.fireErrorCaught(error)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        if !refused, failsStaleRequest() {
            context.fireErrorCaught(StaleConnectionError(underlying: ChannelError.eof))
        }
        context.fireChannelInactive()
    }

    /// Whether the failure happening now ends a request sent on a reused connection before any
    /// byte of its response; reported once.
    private func failsStaleRequest() -> Bool {
        guard detectsStaleConnections, awaitingResponse, completedResponses > 0 else { return false }
        awaitingResponse = false
        return true
    }
}

/// A response whose status code is not an HTTP status (100…599).
struct InvalidResponseStatus: Error, CustomStringConvertible {
    let code: Int

    var description: String {
        "The server sent status code \(String(format: "%03d", code)), which is not an HTTP status (100–599)."
    }
}

/// A kept-alive connection that had carried a complete exchange was closed after the next request
/// was written and before any byte of its response arrived.
struct StaleConnectionError: Error, CustomStringConvertible {
    let underlying: any Error
    /// Request body bytes the failed attempt had reported as sent (filled in by the transport).
    var bodyBytesReported: Int64 = 0
    /// An HTTP/2 stream the server never processed (refused, or dropped by a GOAWAY), or a request the engine
    /// dropped unsent because its connection was closing: sent again up to three times, where a stale HTTP/1.1
    /// connection's request goes again once.
    var wasNeverSent = false

    /// How many times a request failing this way is sent again.
    var retryLimit: Int { wasNeverSent ? 3 : 1 }

    var description: String {
        "The server closed a reused connection before answering (\(underlying))."
    }
}

extension ResponseHeadGuard {
    /// Installs a guard on an HTTP/1.1 connection, right after SwiftNIO's response parser.
    static func install(onHTTP1Connection channel: any Channel) -> EventLoopFuture<Void> {
        channel.configuringPipelineIfActive {
            let pipeline = channel.pipeline.syncOperations
            let parser = try pipeline.handler(type: ByteToMessageHandler<HTTPResponseDecoder>.self)
            try pipeline.addHandler(ResponseHeadGuard(detectsStaleConnections: true), position: .after(parser))
        }
    }

    /// Installs a guard on an HTTP/2 stream, right after the codec that turns its frames into response parts.
    static func install(onHTTP2Stream channel: any Channel) -> EventLoopFuture<Void> {
        channel.configuringPipelineIfActive {
            let pipeline = channel.pipeline.syncOperations
            let codec = try pipeline.handler(type: HTTP2FramePayloadToHTTP1ClientCodec.self)
            try pipeline.addHandler(ResponseHeadGuard(detectsStaleConnections: false), position: .after(codec))
        }
    }
}
