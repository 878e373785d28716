/// Which HTTP versions a transport may use.
public enum HTTPVersionPolicy: Sendable {
    /// HTTP/2 when the server offers it over TLS (ALPN), HTTP/1.1 otherwise.
    case automatic
    /// HTTP/1.1 only.
    case http1Only
}
