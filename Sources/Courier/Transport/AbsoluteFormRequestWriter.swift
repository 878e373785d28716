import NIOCore
import NIOHTTP1

/// Writes each request's target in absolute form (`GET http://origin:port/path HTTP/1.1`) on a connection to an
/// HTTP proxy that forwards plain-HTTP requests (RFC 9112 §3.2.2), as curl and browsers do for `http://` URLs.
///
/// The engine writes origin-form targets (`/path`) to the host of the request's URL; for a forwarded request that
/// host is the proxy, and the transport names the origin of the request's URL in ``targetField`` (not taken from
/// `Host`, which a caller may set to anything), so the absolute form is rebuilt here from it, just before SwiftNIO's
/// request encoder, and the field removed.
final class AbsoluteFormRequestWriter: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = HTTPClientRequestPart
    typealias OutboundOut = HTTPClientRequestPart

    /// The field carrying `scheme://host[:port]` from the transport to this writer; never sent.
    static let targetField = "X-Courier-Forward-Origin"

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard case .head(var head) = unwrapOutboundIn(data), let origin = head.headers.first(name: Self.targetField) else {
            context.write(data, promise: promise)
            return
        }
        head.headers.remove(name: Self.targetField)
        if head.uri.hasPrefix("/") { head.uri = origin + head.uri }
        context.write(wrapOutboundOut(.head(head)), promise: promise)
    }

    /// Installs the writer on an HTTP/1.1 connection, between the engine's handler and the request encoder.
    static func install(onHTTP1Connection channel: any Channel) -> EventLoopFuture<Void> {
        channel.configuringPipelineIfActive {
            let pipeline = channel.pipeline.syncOperations
            let encoder = try pipeline.handler(type: HTTPRequestEncoder.self)
            try pipeline.addHandler(AbsoluteFormRequestWriter(), position: .after(encoder))
        }
    }
}
