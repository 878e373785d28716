import Hummingbird
import NIOCore
import NIOHTTPTypes

/// Answers `Expect: 100-continue` with an interim `100 Continue` as soon as the request head
/// arrives, so clients that wait for it (libcurl, hence URLSession on Linux) send their bodies at
/// once. Hummingbird does not do this itself.
final class ExpectContinueHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundOut = HTTPResponsePart

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head(let head) = unwrapInboundIn(data),
            head.headerFields[.expect]?.lowercased() == "100-continue"
        {
            context.writeAndFlush(wrapOutboundOut(.head(HTTPResponse(status: .continue))), promise: nil)
        }
        context.fireChannelRead(data)
    }
}
