import Hummingbird

/// Per-server state shared by the route handlers.
struct RouteEnvironment: Sendable {
    /// `http` or `https`, for absolute URLs built from the `Host` header.
    let scheme: String
    /// Nonces issued by the digest-auth endpoints.
    let digestNonces: DigestNonceStore

    /// The absolute URL of `target` (a path with an optional query) on this server, as the client addressed it.
    func absoluteURL(_ target: String, request: Request) -> String {
        "\(scheme)://\(request.hostHeader ?? "127.0.0.1")\(target)"
    }
}

extension Request {
    /// `Host` for HTTP/1.1, `:authority` for HTTP/2 (both arrive as the authority).
    var hostHeader: String? {
        head.authority
    }

    /// The request target (path and query) as sent.
    var target: String { uri.string }
}
