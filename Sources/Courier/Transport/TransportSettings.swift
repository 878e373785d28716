import CoreMetrics
import Foundation
import Logging

/// What a session, an operation or a user says about the connections a default transport makes: limits,
/// timeouts, HTTP versions, which certificates are trusted, proxies, a Unix socket, and where the connection pool
/// logs. One value travels unchanged from ``SessionConfiguration/transportSettings`` (or an operation's policy and
/// proxy) to ``EngineTransport/Configuration/settings``; a new transport setting is declared here and read
/// where the engine's client is configured, nowhere else.
public struct TransportSettings: Sendable {
    /// The most HTTP/1.1 connections per host. Default 8. Further requests to the host wait in the engine's
    /// queue for a connection (see ``connectionWaitTimeout``).
    public var maximumConnectionsPerHost: Int = 8
    /// Which HTTP versions may be used. Default `.automatic`.
    public var httpVersion: HTTPVersionPolicy = .automatic
    /// How long to wait for a TCP connection (and TLS handshake). Default 10 s.
    public var connectTimeout: TimeInterval = 10
    /// How long a request may wait for a connection: queued behind others to the same host (see
    /// ``maximumConnectionsPerHost``) and while a new connection is made. Past it the request fails with
    /// `URLError(.timedOut)`. Default 300 s; zero or less means no limit.
    ///
    /// The request's own idle timeout (`URLRequest.timeoutInterval`) starts only once the request is written to a
    /// connection: waiting in the queue is not idleness, as nothing could move yet. ``connectTimeout`` still
    /// bounds each connection attempt.
    public var connectionWaitTimeout: TimeInterval = 300
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
    /// refused (fails closed); see `TLSHandshakeEvaluation`.
    public var securityPolicy: SecurityPolicy = .default
    /// Policies for particular hosts (keys are host names or IP addresses as they appear in URLs, matched without
    /// regard to case), overriding ``securityPolicy`` for those hosts. Default: empty. Not an AFNetworking feature.
    public var securityPolicies: [String: SecurityPolicy] = [:]
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
    /// Addresses to connect to instead of looking up a host's name (curl's `--resolve`; AsyncHTTPClient's
    /// `dnsOverride`): keys are host names exactly as the URLs write them (the engine compares them as they are;
    /// write both spellings for a URL in mixed case), values IP addresses or other names.
    /// Only where the connection goes changes: `Host` keeps the URL's host, and TLS sends it as the server name and
    /// checks the certificate against it, as ``securityPolicy`` says. The mapping is by name, on every port.
    /// Default empty.
    public var resolvedHosts: [String: String] = [:]
    /// Ports to connect to instead of a URL's (the port half of curl's `--connect-to`): for a request whose host and
    /// port match a key, the connection goes to the value's port (on the address ``resolvedHosts`` gives the host,
    /// or its own). A key with a `nil` port matches the host on any port; an exact key wins over it. Only where the
    /// connection goes changes: `Host` (HTTP/2's `:authority`) keeps the URL's host and port, and TLS sends the
    /// URL's host as the server name and checks the certificate against it; cookies, the cache and redirects see the
    /// URL. Not applied to a plain-HTTP request forwarded by an HTTP proxy, which names its origin to the proxy, nor
    /// over a Unix domain socket. Default empty.
    public var connectionPorts: [Endpoint: Int] = [:]
    /// A host as a URL writes it (without brackets for IPv6) and a port; `nil` stands for every port.
    public struct Endpoint: Hashable, Sendable {
        /// The host, compared as written (as ``TransportSettings/resolvedHosts`` compares it).
        public var host: String
        /// The port, or `nil` for every port.
        public var port: Int?

        /// Creates an endpoint.
        /// - Parameters:
        ///   - host: The host as the URL writes it.
        ///   - port: The port, or `nil` (the default) for every port.
        public init(host: String, port: Int? = nil) {
            self.host = host
            self.port = port
        }
    }

    /// The port to connect to for `host`:`port` by ``connectionPorts``: the exact entry's, else the host's any-port
    /// entry's, else `port`.
    func connectionPort(host: String, port: Int) -> Int {
        guard !connectionPorts.isEmpty else { return port }
        return connectionPorts[Endpoint(host: host, port: port)] ?? connectionPorts[Endpoint(host: host)] ?? port
    }
    /// Where the transport's connection measurements go: `http.client.open_connections` and
    /// `http.client.connection.duration` (see ``Telemetry``). Default `nil`: `MetricsSystem.factory`, as bootstrapped
    /// when the transport makes its client for a host; a session's own transport uses its
    /// ``Telemetry/metricsFactory`` when this is `nil`.
    public var metricsFactory: (any MetricsFactory)?
    /// Handed to AsyncHTTPClient for its connection pool's events and each request's (connections made,
    /// reused and closed, at `debug` and `trace`). Default ``ExchangeConfiguration/silentLogger``.
    public var logger: Logger = ExchangeConfiguration.silentLogger

    /// The defaults listed on each property.
    public init() {}
}
