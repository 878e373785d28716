import Foundation

/// One proxy: an HTTP proxy (requests for `http://` URLs are forwarded in absolute form, `https://` ones go through a
/// `CONNECT` tunnel) or a SOCKS5 proxy (a tunnel for both), with optional Basic credentials for an HTTP proxy.
public struct ProxyServer: Sendable, Hashable, CustomStringConvertible {
    /// The protocol spoken to the proxy.
    public enum Kind: String, Sendable, Hashable {
        /// An HTTP proxy (`http://`): absolute-form requests for `http://` URLs, `CONNECT` for `https://`.
        case http
        /// A SOCKS5 proxy (`socks5://` or `socks5h://`): the proxy resolves host names in both forms.
        case socks5
    }

    /// Basic credentials for an HTTP proxy (`Proxy-Authorization`).
    public struct Credentials: Sendable, Hashable {
        /// The user name.
        public var user: String
        /// The password; may be empty.
        public var password: String

        /// Credentials for `user` with `password`.
        public init(user: String, password: String) {
            self.user = user
            self.password = password
        }

        /// The `Proxy-Authorization` header value: `Basic` with `user:password` in base64.
        var headerValue: String {
            "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()
        }
    }

    /// The protocol spoken to the proxy.
    public var kind: Kind
    /// The proxy's host name or IP address (an IPv6 address without brackets).
    public var host: String
    /// The proxy's port.
    public var port: Int
    /// Credentials for an HTTP proxy; `nil` sends none. Not supported for SOCKS5 (the engine's SOCKS client offers
    /// no authentication): ``init(url:)`` refuses them there.
    public var credentials: Credentials?

    /// The default port of a proxy URL without one: 1080, as curl uses for every kind of proxy.
    public static let defaultPort = 1080

    /// A proxy at `host`:`port`.
    public init(kind: Kind, host: String, port: Int, credentials: Credentials? = nil) {
        self.kind = kind
        self.host = host
        self.port = port
        self.credentials = credentials
    }

    /// A proxy from a curl-style proxy string: `[scheme://][user:password@]host[:port]`.
    ///
    /// Schemes: `http` (the default when none is given), `socks5` and `socks5h`. The port defaults to
    /// ``defaultPort``. User and password are percent-decoded.
    /// - Throws: ``ProxyConfigurationError`` for another scheme (`https` proxies, SOCKS4), a missing or malformed
    ///   host, a port outside 1…65535, a path, or credentials on a SOCKS5 proxy.
    public init(url text: String) throws(ProxyConfigurationError) {
        // Messages show the proxy without its password.
        let shown = Self.withoutPassword(text).debugDescription
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let withScheme = trimmed.contains("://") ? trimmed : "http://" + trimmed
        guard let components = URLComponents(string: withScheme), let scheme = components.scheme?.lowercased() else {
            throw ProxyConfigurationError("The proxy \(shown) is not a URL.")
        }
        switch scheme {
        case "http": kind = .http
        case "socks5", "socks5h": kind = .socks5
        case "https":
            throw ProxyConfigurationError("The proxy \(shown) is an HTTPS proxy; only http:// and socks5:// proxies are supported.")
        default:
            throw ProxyConfigurationError("The proxy \(shown) uses \(scheme)://; only http:// and socks5:// proxies are supported.")
        }
        guard var host = components.host, !host.isEmpty else {
            throw ProxyConfigurationError("The proxy \(shown) has no host.")
        }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard RequestURLCheck.isAcceptableHost(host) else {
            throw ProxyConfigurationError("The proxy's host \(host.debugDescription) contains characters a host name cannot have.")
        }
        self.host = host
        if let portText = RequestURLCheck.portText(of: withScheme), !portText.isEmpty {
            guard portText.utf8.count <= 5, let port = Int(portText), (1...65535).contains(port) else {
                throw ProxyConfigurationError("The proxy's port \(portText) is not between 1 and 65535.")
            }
            self.port = port
        } else {
            self.port = Self.defaultPort
        }
        guard components.percentEncodedPath.isEmpty || components.percentEncodedPath == "/",
            components.percentEncodedQuery == nil
        else {
            throw ProxyConfigurationError("The proxy \(shown) has a path or a query; give only [user:password@]host[:port].")
        }
        if let user = components.user {
            guard kind == .http else {
                throw ProxyConfigurationError("SOCKS5 proxy credentials are not supported (the engine's SOCKS client has no authentication).")
            }
            credentials = Credentials(user: user, password: components.password ?? "")
        } else {
            credentials = nil
        }
    }

    /// `text` with the password of a `user:password@` removed (for messages).
    static func withoutPassword(_ text: String) -> String {
        let start = text.range(of: "://")?.upperBound ?? text.startIndex
        let authorityEnd = text[start...].firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? text.endIndex
        guard let at = text[start..<authorityEnd].lastIndex(of: "@"),
              let colon = text[start..<at].firstIndex(of: ":")
        else { return text }
        return String(text[..<colon]) + String(text[at...])
    }

    /// The proxy as a URL without its password: `http://user@host:port`.
    public var description: String {
        let scheme = kind == .http ? "http" : "socks5"
        let user = credentials.map { "\($0.user)@" } ?? ""
        let shownHost = host.contains(":") ? "[\(host)]" : host
        return "\(scheme)://\(user)\(shownHost):\(port)"
    }
}
