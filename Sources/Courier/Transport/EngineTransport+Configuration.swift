import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOSSL

extension EngineTransport {
    /// Which HTTP versions the transport may use.
    public typealias HTTPVersionPolicy = Courier.HTTPVersionPolicy

    /// Settings of an ``EngineTransport``.
    public struct Configuration: Sendable {
        /// How long an unused pooled connection stays open. Default 60 s.
        public var idleConnectionTimeout: TimeInterval = 60
        /// How long an HTTPS connection pool (there is one per security policy, host, port and proxy) may go without a
        /// request before the transport shuts it down; it does so when it next makes a pool. `0` shuts every idle pool
        /// down then. Default 60 s.
        public var idlePoolLifetime: TimeInterval = 60
        /// How many HTTPS connection pools without a request in flight the transport keeps at most: making one more
        /// shuts the least recently used idle pool down. A pool with a request in flight is never shut down, so the
        /// transport holds at most this many pools plus those in use, however many hosts it meets. Default 32.
        ///
        /// AsyncHTTPClient frees most of a pool it shut down (about 1 MB, its TLS context) only once
        /// ``idleConnectionTimeout`` has passed: a client that meets many new hosts a second should lower that too.
        public var maximumIdlePools: Int = 32
        /// The base TLS settings of every HTTPS connection (minimum version, ciphers, ALPN).
        /// Default: `TLSConfiguration.makeClientConfiguration()`.
        ///
        /// Its `certificateVerification`, `trustRoots` and `additionalTrustRoots` are replaced by what the connection's
        /// ``securityPolicy`` requires (trust other roots with ``SecurityPolicy/trustedRootCertificates``), and its
        /// `certificateChain` and `privateKey` by ``clientCertificate`` when that is set.
        public var tlsConfiguration: TLSConfiguration = .makeClientConfiguration()
        /// The certificate chain and key presented to servers that request a client certificate (mutual TLS).
        /// Default: `nil` (no client certificate). Not an AFNetworking feature.
        public var clientCertificate: ClientCertificate?
        /// An extra handshake hook: called on every new connection after the TLS handshake and after the security
        /// policy accepted it, before the connection carries a request; a failed future closes the connection and
        /// fails the request. Default `nil`.
        public var connectionVerifier: (@Sendable (any Channel) -> EventLoopFuture<Void>)?

        /// The engine-neutral settings (connections, timeouts, HTTP versions, trust, proxies, the socket, the pool's
        /// logger); the properties below of the same names read and write them. Default: ``TransportSettings/init()``.
        public var settings = TransportSettings()
        /// ``TransportSettings/connectTimeout`` of ``settings``.
        public var connectTimeout: TimeInterval {
            get { settings.connectTimeout }
            set { settings.connectTimeout = newValue }
        }
        /// ``TransportSettings/maximumConnectionsPerHost`` of ``settings``.
        public var maximumConnectionsPerHost: Int {
            get { settings.maximumConnectionsPerHost }
            set { settings.maximumConnectionsPerHost = newValue }
        }
        /// ``TransportSettings/connectionWaitTimeout`` of ``settings``.
        public var connectionWaitTimeout: TimeInterval {
            get { settings.connectionWaitTimeout }
            set { settings.connectionWaitTimeout = newValue }
        }
        /// ``TransportSettings/httpVersion`` of ``settings``.
        public var httpVersion: HTTPVersionPolicy {
            get { settings.httpVersion }
            set { settings.httpVersion = newValue }
        }
        /// ``TransportSettings/securityPolicy`` of ``settings``.
        public var securityPolicy: SecurityPolicy {
            get { settings.securityPolicy }
            set { settings.securityPolicy = newValue }
        }
        /// ``TransportSettings/securityPolicies`` of ``settings``.
        public var securityPolicies: [String: SecurityPolicy] {
            get { settings.securityPolicies }
            set { settings.securityPolicies = newValue }
        }
        /// ``TransportSettings/proxy`` of ``settings``.
        public var proxy: ProxyConfiguration? {
            get { settings.proxy }
            set { settings.proxy = newValue }
        }
        /// ``TransportSettings/unixSocketPath`` of ``settings``.
        public var unixSocketPath: String? {
            get { settings.unixSocketPath }
            set { settings.unixSocketPath = newValue }
        }
        /// ``TransportSettings/logger`` of ``settings``.
        public var logger: Logger {
            get { settings.logger }
            set { settings.logger = newValue }
        }

        /// Creates the default configuration.
        public init() {}

        /// A configuration with `settings` and the defaults of the engine-only properties.
        public init(settings: TransportSettings) {
            self.settings = settings
        }

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
            configuration.dnsOverride = settings.resolvedHosts
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
            // Each connection that passed is counted open until it closes (nothing when no metrics are bootstrapped).
            let http1Connections = ConnectionMeasurements(factory: settings.metricsFactory, protocolVersion: "1.1")
            let http2Connections = ConnectionMeasurements(factory: settings.metricsFactory, protocolVersion: "2")
            configuration.http1_1ConnectionDebugInitializer = { channel in
                var checked = verifier(channel).flatMap { ResponseHeadGuard.install(onHTTP1Connection: channel) }
                if forwardsPlainHTTP { checked = checked.flatMap { AbsoluteFormRequestWriter.install(onHTTP1Connection: channel) } }
                guard let http1Connections else { return checked }
                return checked.map { http1Connections.opened(channel) }
            }
            configuration.http2ConnectionDebugInitializer = { channel in
                guard let http2Connections else { return verifier(channel) }
                return verifier(channel).map { http2Connections.opened(channel) }
            }
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
