import Foundation

/// Which proxy carries a request: one for `http://` URLs, one for `https://` URLs, and the hosts that bypass both.
///
/// Set it on ``SessionConfiguration/proxy``, ``HTTPRequestOperationManager/proxy``,
/// ``URLConnectionOperation/proxy`` or ``EngineTransport/Configuration/proxy``; every one defaults to `nil`,
/// no proxy. To use the environment's proxies as curl and most command-line programs do, use
/// ``fromEnvironment(_:)``.
///
/// The security policy always applies to the origin server: an `https://` request goes through the proxy in a
/// `CONNECT` (or SOCKS5) tunnel and the TLS handshake, pins included, is with the origin, never with the proxy.
public struct ProxyConfiguration: Sendable, Hashable {
    /// The proxy for `http://` URLs; `nil` connects directly. Default `nil`.
    public var httpProxy: ProxyServer?
    /// The proxy for `https://` URLs; `nil` connects directly. Default `nil`.
    public var httpsProxy: ProxyServer?
    /// Hosts reached directly (`no_proxy`). Default: none.
    public var bypass: ProxyBypass

    /// A configuration with the given proxies (default: none) and bypass rules (default: none).
    public init(httpProxy: ProxyServer? = nil, httpsProxy: ProxyServer? = nil, bypass: ProxyBypass = ProxyBypass()) {
        self.httpProxy = httpProxy
        self.httpsProxy = httpsProxy
        self.bypass = bypass
    }

    /// `server` for both schemes, except the hosts of `bypass`.
    public static func all(_ server: ProxyServer, bypass: ProxyBypass = ProxyBypass()) -> ProxyConfiguration {
        ProxyConfiguration(httpProxy: server, httpsProxy: server, bypass: bypass)
    }

    /// The proxy for a request to `host`:`port` over `scheme` (`http` or `https`), or nil to connect directly
    /// (always for other schemes, such as `http+unix`).
    public func proxy(forScheme scheme: String, host: String, port: Int) -> ProxyServer? {
        let server: ProxyServer?
        switch scheme {
        case "http": server = httpProxy
        case "https": server = httpsProxy
        default: server = nil
        }
        guard let server, !bypass.bypassesProxy(host: host, port: port) else { return nil }
        return server
    }

    /// Whether any request can go through a proxy.
    public var isEmpty: Bool { httpProxy == nil && httpsProxy == nil }

    /// The proxies of the environment variables curl reads, with curl's precedence:
    /// `http_proxy` for `http://` URLs (lower case only: an upper-case `HTTP_PROXY` can be set by a CGI request's
    /// `Proxy:` header, so curl ignores it), `https_proxy` then `HTTPS_PROXY` for `https://`, `all_proxy` then
    /// `ALL_PROXY` for either when its own is unset, and `no_proxy` then `NO_PROXY` for the bypass list. Empty
    /// values count as unset.
    /// - Parameter environment: the variables; default: the process's environment.
    /// - Throws: ``ProxyConfigurationError`` naming the variable whose value cannot be used.
    public static func fromEnvironment(
        _ environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(ProxyConfigurationError) -> ProxyConfiguration {
        func value(_ names: String...) -> (name: String, value: String)? {
            for name in names {
                if let value = environment[name], !value.trimmingCharacters(in: .whitespaces).isEmpty { return (name, value) }
            }
            return nil
        }
        func server(_ names: String...) throws(ProxyConfigurationError) -> ProxyServer? {
            var found: (name: String, value: String)?
            for name in names where found == nil {
                found = value(name)
            }
            guard let found else { return nil }
            do {
                return try ProxyServer(url: found.value)
            } catch {
                throw ProxyConfigurationError("\(found.name): \(error.description)")
            }
        }
        var configuration = ProxyConfiguration()
        configuration.httpProxy = try server("http_proxy", "all_proxy", "ALL_PROXY")
        configuration.httpsProxy = try server("https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY")
        if let list = value("no_proxy", "NO_PROXY") {
            do {
                configuration.bypass = try ProxyBypass(parsing: list.value)
            } catch {
                throw ProxyConfigurationError("\(list.name): \(error.description)")
            }
        }
        return configuration
    }
}
