import NIOCore
import NIOHTTP1

/// Writes each request's target in absolute form (`GET http://origin:port/path HTTP/1.1`) on a connection to an
/// HTTP proxy that forwards plain-HTTP requests (RFC 9112 §3.2.2), as curl and browsers do for `http://` URLs.
///
/// The engine writes origin-form targets (`/path`) to the host of the request's URL; for a forwarded request that
/// host is the proxy and the origin is named by the `Host` header the transport sets, so the absolute form is
/// rebuilt here from it, just before SwiftNIO's request encoder.
final class AbsoluteFormRequestWriter: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = HTTPClientRequestPart
    typealias OutboundOut = HTTPClientRequestPart

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard case .head(var head) = unwrapOutboundIn(data), head.uri.hasPrefix("/"),
            let host = head.headers.first(name: "Host")
        else {
            context.write(data, promise: promise)
            return
        }
        head.uri = "http://\(host)\(head.uri)"
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
