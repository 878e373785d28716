import AsyncHTTPClient
import Foundation
import NIOCore
import NIOSSL

extension AsyncHTTPClientTransport {
    /// Which HTTP versions the transport may use.
    public enum HTTPVersionPolicy: Sendable {
        /// HTTP/2 when the server offers it over TLS (ALPN), HTTP/1.1 otherwise.
        case automatic
        /// HTTP/1.1 only.
        case http1Only
    }

    /// Settings of an ``AsyncHTTPClientTransport``.
    public struct Configuration: Sendable {
        /// How long to wait for a TCP connection (and TLS handshake). Default 10 s.
        public var connectTimeout: TimeInterval = 10
        /// How long an unused pooled connection stays open. Default 60 s.
        public var idleConnectionTimeout: TimeInterval = 60
        /// The most HTTP/1.1 connections per host. Default 8.
        public var maximumConnectionsPerHost: Int = 8
        /// Which HTTP versions may be used. Default `.automatic`.
        public var httpVersion: HTTPVersionPolicy = .automatic
        /// The TLS settings (trust roots, client certificate, minimum version).
        /// Default: the system's trust roots with full verification.
        public var tlsConfiguration: TLSConfiguration = .makeClientConfiguration()
        /// The handshake hook: called on every new TLS connection after the handshake and before the
        /// connection carries a request; a failed future closes the connection and fails the request.
        /// This is where a security policy evaluates the server's certificate. Default `nil`.
        public var connectionVerifier: (@Sendable (any Channel) -> EventLoopFuture<Void>)?

        /// Creates the default configuration.
        public init() {}

        func makeClientConfiguration() -> HTTPClient.Configuration {
            var configuration = HTTPClient.Configuration()
            configuration.tlsConfiguration = tlsConfiguration
            configuration.redirectConfiguration = .disallow
            configuration.decompression = .disabled
            configuration.timeout = .init(connect: .nanoseconds(Int64(connectTimeout * 1_000_000_000)), read: nil)
            configuration.connectionPool = .init(
                idleTimeout: .nanoseconds(Int64(idleConnectionTimeout * 1_000_000_000)),
                concurrentHTTP1ConnectionsPerHostSoftLimit: maximumConnectionsPerHost
            )
            // Report connection failures at once instead of retrying until the connect timeout.
            configuration.connectionPool.retryConnectionEstablishment = false
            configuration.httpVersion = httpVersion == .http1Only ? .http1Only : .automatic
            if let connectionVerifier {
                configuration.http1_1ConnectionDebugInitializer = connectionVerifier
                configuration.http2ConnectionDebugInitializer = connectionVerifier
            }
            return configuration
        }
    }
}
