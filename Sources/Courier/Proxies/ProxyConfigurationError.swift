import Foundation

/// A proxy setting that cannot be used: a malformed proxy URL or bypass entry, or a kind of proxy the engine does
/// not speak. Thrown when the setting is read (``ProxyServer/init(url:)``, ``ProxyBypass/init(parsing:)``,
/// ``ProxyConfiguration/fromEnvironment(_:)``), never silently ignored.
public struct ProxyConfigurationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What was wrong, in words meant for an error message.
    public let description: String

    /// An error with its message.
    public init(_ description: String) {
        self.description = description
    }
}

/// A proxy refused to carry a request.
public enum ProxyError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The proxy answered `407 Proxy Authentication Required`, to a request sent without proxy credentials or with
    /// credentials it did not accept. `proxy` is shown without its password.
    case authenticationRequired(proxy: String, credentialsWereSent: Bool)
    /// The proxy did not open a tunnel: its answer to `CONNECT` was neither `200` nor `407` (some proxies answer
    /// wrong credentials with `401`), or a SOCKS5 proxy refused the connection.
    case tunnelRefused(proxy: String, target: String)

    /// One sentence naming the proxy and what to do.
    public var description: String {
        switch self {
        case .authenticationRequired(let proxy, true):
            return "The proxy \(proxy) refused the proxy credentials (407 Proxy Authentication Required)."
        case .authenticationRequired(let proxy, false):
            return "The proxy \(proxy) requires authentication (407 Proxy Authentication Required); give credentials in the proxy URL (http://user:password@host:port)."
        case .tunnelRefused(let proxy, let target):
            return "The proxy \(proxy) refused to open a tunnel to \(target) (wrong proxy credentials, or a destination it does not allow)."
        }
    }

    /// `URLError(.userAuthenticationRequired)` or, for a refused tunnel, `URLError(.cannotConnectToHost)`, with
    /// ``description`` as its message.
    public var urlError: URLError {
        switch self {
        case .authenticationRequired: return URLError(.userAuthenticationRequired, userInfo: [NSLocalizedDescriptionKey: description])
        case .tunnelRefused: return URLError(.cannotConnectToHost, userInfo: [NSLocalizedDescriptionKey: description])
        }
    }
}
