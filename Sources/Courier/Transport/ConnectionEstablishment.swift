import Foundation

/// The new connection a request waited for: from the moment the request was handed to the engine (which then
/// resolves the host, connects and, for HTTPS, completes the TLS handshake and the security policy's check) to the
/// moment the connection was ready to carry it.
///
/// AsyncHTTPClient reports only when a new connection is ready, not when its name lookup, TCP connect or TLS
/// handshake started or ended, so this interval covers all of them together. A request that went out on a pooled
/// connection has none (its metrics say the connection was reused).
public struct ConnectionEstablishment: Sendable, Equatable {
    /// When the request was handed to the engine with no idle connection to take.
    public let start: Date
    /// When the new connection was ready: connected, and for HTTPS with the TLS handshake done and the certificate
    /// accepted.
    public let end: Date
    /// Whether the connection is TLS (an `https` URL).
    public let isSecure: Bool

    /// Creates an interval; `end` earlier than `start` is raised to `start`.
    public init(start: Date, end: Date, isSecure: Bool) {
        self.start = start
        self.end = max(start, end)
        self.isSecure = isSecure
    }
}
