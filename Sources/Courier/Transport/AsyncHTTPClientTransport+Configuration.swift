import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOSSL

extension AsyncHTTPClientTransport {
    /// Which HTTP versions the transport may use.
    public typealias HTTPVersionPolicy = Courier.HTTPVersionPolicy

    /// Settings of an ``AsyncHTTPClientTransport``.
    public struct Configuration: Sendable {
        /// How long to wait for a TCP connection (and TLS handshake). Default 10 s.
        public var connectTimeout: TimeInterval = 10
        /// How long an unused pooled connection stays open. Default 60 s.
        public var idleConnectionTimeout: TimeInterval = 60
        /// The most HTTP/1.1 connections per host. Default 8. Further requests to the host wait in the engine's
        /// queue for a connection (see ``connectionWaitTimeout``).
        public var maximumConnectionsPerHost: Int = 8
        /// How long a request may wait for a connection: queued behind others to the same host (see
        /// ``maximumConnectionsPerHost``) and while a new connection is made. Past it the request fails with
        /// `URLError(.timedOut)`. Default 300 s; zero or less means no limit.
        ///
        /// The request's own idle timeout (`URLRequest.timeoutInterval`) starts only once the request is written to a
        /// connection: waiting in the queue is not idleness, as nothing could move yet. ``connectTimeout`` still
        /// bounds each connection attempt.
        public var connectionWaitTimeout: TimeInterval = 300
        /// Which HTTP versions may be used. Default `.automatic`.
        public var httpVersion: HTTPVersionPolicy = .automatic
        /// The base TLS settings of every HTTPS connection (minimum version, ciphers, ALPN).
        /// Default: `TLSConfiguration.makeClientConfiguration()`.
        ///
        /// Its `certificateVerification`, `trustRoots` and `additionalTrustRoots` are replaced by what the connection's
        /// ``securityPolicy`` requires (trust other roots with ``SecurityPolicy/trustedRootCertificates``), and its
        /// `certificateChain` and `privateKey` by ``clientCertificate`` when that is set.
        public var tlsConfiguration: TLSConfiguration = .makeClientConfiguration()
        /// Decides which server certificates are trusted, for every host without an entry in ``securityPolicies``.
        /// Default: `SecurityPolicy.default` (the system's roots, the host name checked, no pinning).
        ///
        /// Enforced during the TLS handshake, before any request byte is sent: SwiftNIO SSL verifies the path to a
        /// trusted root (system roots plus ``SecurityPolicy/trustedRootCertificates``, or nothing when
        /// ``SecurityPolicy/allowInvalidCertificates``), then Courier checks the host name (subject alternative names
        /// only) and the pins on the certificate the server presented, and closes the connection when the policy
        /// refuses it. The request then fails with `URLError(.serverCertificateUntrusted)` whose message gives the
        /// policy's reason, at once (no retry).
        ///
        /// The transport keeps one connection pool per policy instance and host, so two policies never share a
        /// connection; changing a policy's ``SecurityPolicy/trustedRootCertificates`` or
        /// ``SecurityPolicy/allowInvalidCertificates`` later makes new connections for later requests, while pins and
        /// host checking apply to every new connection as they are when it is made.
        ///
        /// Pins (certificate or public key) match the leaf, the certificate that signed it, and the root the chain
        /// leads to: a pinned root becomes the TLS stack's only trust anchor for that policy, so the handshake proves
        /// the chain reaches it (with pinned roots, a chain to any other root is refused, even if it carries another
        /// pinned certificate). Engine limit: AsyncHTTPClient hands Courier only the server's leaf certificate after
        /// the handshake, so a pin on an intermediate that did not sign the leaf cannot be seen and the connection is
        /// refused (fails closed); see ``TLSHandshakeEvaluation``.
        public var securityPolicy: SecurityPolicy = .default
        /// Policies for particular hosts (keys are host names or IP addresses as they appear in URLs, matched without
        /// regard to case), overriding ``securityPolicy`` for those hosts. Default: empty. Not an AFNetworking feature.
        public var securityPolicies: [String: SecurityPolicy] = [:]
        /// The certificate chain and key presented to servers that request a client certificate (mutual TLS).
        /// Default: `nil` (no client certificate). Not an AFNetworking feature.
        public var clientCertificate: ClientCertificate?
        /// The proxies requests go through, by scheme, with hosts that bypass them. Default `nil`: every request
        /// connects directly (the environment's `http_proxy` and the like are read only when asked, with
        /// ``ProxyConfiguration/fromEnvironment(_:)``).
        ///
        /// `http://` requests go to an HTTP proxy in absolute form (`GET http://origin/path`), with
        /// `Proxy-Authorization: Basic` when it has credentials; `https://` requests go through a `CONNECT` tunnel
        /// (credentials on the `CONNECT`), and through a SOCKS5 proxy both go in a tunnel. In a tunnel the TLS
        /// handshake is with the origin, so ``securityPolicy`` and its pins apply to the origin's certificate, never
        /// to the proxy. A proxy answering 407 fails the request with ``ProxyError/authenticationRequired(proxy:credentialsWereSent:)``
        /// (`URLError(.userAuthenticationRequired)`), one refusing a tunnel with ``ProxyError/tunnelRefused(proxy:target:)``.
        public var proxy: ProxyConfiguration?
        /// The Unix domain socket every request is sent over, whatever its URL's host (curl's `--unix-socket`): the
        /// URL's host and port still go into `Host`. Plain HTTP only (an `https` URL fails with
        /// `URLError(.unsupportedURL)`); no proxy applies. Default `nil`. One request can also name its socket in an
        /// `http+unix://<percent-encoded socket path>/path` URL (AsyncHTTPClient's form), sent with `Host: localhost`.
        public var unixSocketPath: String?
        /// Handed to AsyncHTTPClient for its connection pool's events and each request's (connections made,
        /// reused and closed, at `debug` and `trace`). Default ``ExchangeConfiguration/silentLogger``.
        public var logger: Logger = ExchangeConfiguration.silentLogger
        /// An extra handshake hook: called on every new connection after the TLS handshake and after the security
        /// policy accepted it, before the connection carries a request; a failed future closes the connection and
        /// fails the request. Default `nil`.
        public var connectionVerifier: (@Sendable (any Channel) -> EventLoopFuture<Void>)?

        /// Creates the default configuration.
        public init() {}

        /// The engine configuration of one client: `tls` for HTTPS and `verifier` on every new connection; through
        /// `proxy` when given, as the engine's own proxy (a tunnel) unless `forwardsPlainHTTP` (requests are then
        /// sent to the proxy itself in absolute form).
        func makeClientConfiguration(
            tls: TLSConfiguration,
            verifier: @escaping @Sendable (any Channel) -> EventLoopFuture<Void>,
            proxy: ProxyServer? = nil,
            forwardsPlainHTTP: Bool = false
        ) -> HTTPClient.Configuration {
            var configuration = HTTPClient.Configuration()
            if let proxy, !forwardsPlainHTTP {
                switch proxy.kind {
                case .http:
                    configuration.proxy = .server(
                        host: proxy.host, port: proxy.port,
                        authorization: proxy.credentials.map { .basic(username: $0.user, password: $0.password) }
                    )
                case .socks5:
                    configuration.proxy = .socksServer(host: proxy.host, port: proxy.port)
                }
            }
            configuration.tlsConfiguration = tls
            configuration.redirectConfiguration = .disallow
            configuration.decompression = .disabled
            // Courier records its own client span per attempt under the request's logical span (ExchangeTrace). The
            // engine would start another from the bootstrapped tracer on its event loop, outside the caller's
            // context: a root span of a trace of its own for every request.
            configuration.tracing.tracer = nil
            configuration.timeout = .init(connect: .init(clampedSeconds: connectTimeout), read: nil)
            configuration.connectionPool = .init(
                idleTimeout: .init(clampedSeconds: idleConnectionTimeout),
                concurrentHTTP1ConnectionsPerHostSoftLimit: maximumConnectionsPerHost
            )
            // Report connection failures at once instead of retrying until the connect timeout.
            configuration.connectionPool.retryConnectionEstablishment = false
            configuration.httpVersion = httpVersion == .http1Only ? .http1Only : .automatic
            // Every connection is checked (the policy, the caller's hook) before it carries a request, and gets a
            // guard that stops response heads the engine would trap on (see ResponseHeadGuard).
            configuration.http1_1ConnectionDebugInitializer = { channel in
                let checked = verifier(channel).flatMap { ResponseHeadGuard.install(onHTTP1Connection: channel) }
                guard forwardsPlainHTTP else { return checked }
                return checked.flatMap { AbsoluteFormRequestWriter.install(onHTTP1Connection: channel) }
            }
            configuration.http2ConnectionDebugInitializer = verifier
            configuration.http2StreamChannelDebugInitializer = { channel in
                ResponseHeadGuard.install(onHTTP2Stream: channel)
            }
            return configuration
        }
    }
}

extension TimeAmount {
    /// `seconds` as a time amount, clamped to 0…about 292 years (a conversion of a larger or non-finite
    /// `TimeInterval` to nanoseconds would trap).
    init(clampedSeconds seconds: TimeInterval) {
        let nanoseconds = seconds * 1_000_000_000
        if nanoseconds.isNaN || nanoseconds <= 0 {
            self = .zero
        } else {
            self = .nanoseconds(nanoseconds >= Double(Int64.max) ? .max : Int64(nanoseconds))
        }
    }
}
