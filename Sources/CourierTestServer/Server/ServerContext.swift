import Hummingbird
import NIOCore

/// The request context of the test server: Hummingbird's core storage plus the peer address.
struct ServerContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    /// The client's IP address, as httpbin reports it in `origin`.
    let peerAddress: String

    init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.peerAddress = source.channel.remoteAddress?.ipAddress ?? "unknown"
    }

    /// Request bodies are streamed by the handlers themselves; this bound only applies to
    /// Hummingbird's own decoding helpers, which the server does not use.
    var maxUploadSize: Int { BodyLimits.maxParsedBody }
}

/// Size limits applied to request bodies.
enum BodyLimits {
    /// The largest body the server buffers in memory to parse (form, JSON, `data`).
    static let maxParsedBody = 16 * 1024 * 1024
}
