import Foundation

/// One stored cookie, with the RFC 6265 attributes that decide where it is sent.
///
/// Its earlier name, `Cookie`, stays a deprecated alias for one release: Hummingbird, whose users import it beside
/// Courier, has a public `Cookie` too.
public struct StoredCookie: Sendable, Hashable, Codable {
    /// The cookie's name.
    public var name: String
    /// The cookie's value.
    public var value: String
    /// The domain, lower-cased, without a leading dot.
    public var domain: String
    /// `true` when the cookie had no `Domain` attribute: it goes back to exactly its host only.
    public var isHostOnly: Bool
    /// The path prefix the cookie is sent for.
    public var path: String
    /// Sent over HTTPS only.
    public var isSecure: Bool
    /// Not readable by scripts (kept for completeness; HTTP clients send it like any other).
    public var isHTTPOnly: Bool
    /// When the cookie expires, or `nil` for a session cookie.
    public var expiresAt: Date?
    /// When the cookie was first stored (orders cookies with equal paths).
    public var createdAt: Date

    /// Creates a cookie.
    public init(
        name: String, value: String, domain: String, isHostOnly: Bool = true, path: String = "/",
        isSecure: Bool = false, isHTTPOnly: Bool = false, expiresAt: Date? = nil, createdAt: Date = Date()
    ) {
        self.name = name
        self.value = value
        self.domain = domain.lowercased()
        self.isHostOnly = isHostOnly
        self.path = path
        self.isSecure = isSecure
        self.isHTTPOnly = isHTTPOnly
        self.expiresAt = expiresAt
        self.createdAt = createdAt
    }

    /// Whether the cookie has expired at `date`.
    public func isExpired(at date: Date) -> Bool {
        expiresAt.map { $0 <= date } ?? false
    }

    /// Whether the cookie is to be sent with a request to `url` at `date` (RFC 6265 §5.4).
    public func matches(_ url: URL, at date: Date) -> Bool {
        guard let host = url.host?.lowercased(), !isExpired(at: date) else { return false }
        if isSecure && url.scheme?.lowercased() != "https" { return false }
        let hostMatches = isHostOnly ? host == domain : CookieRules.domain(host, matches: domain)
        return hostMatches && CookieRules.path(CookieRules.requestPath(of: url), matches: path)
    }
}

/// The matching rules of RFC 6265 §5.1.
enum CookieRules {
    /// §5.1.3: `host` is `domain` or a subdomain of it (never for IP addresses).
    static func domain(_ host: String, matches domain: String) -> Bool {
        if host == domain { return true }
        guard host.hasSuffix("." + domain) else { return false }
        return !isIPAddress(host)
    }

    /// §5.1.4: the cookie path is a prefix of the request path at a `/` boundary.
    static func path(_ requestPath: String, matches cookiePath: String) -> Bool {
        if requestPath == cookiePath { return true }
        guard requestPath.hasPrefix(cookiePath) else { return false }
        return cookiePath.hasSuffix("/") || requestPath.dropFirst(cookiePath.count).hasPrefix("/")
    }

    /// §5.1.4: the default path of a cookie set by a response to `url`.
    static func defaultPath(for url: URL) -> String {
        let path = requestPath(of: url)
        guard path.hasPrefix("/"), let lastSlash = path.lastIndex(of: "/"), lastSlash != path.startIndex else {
            return "/"
        }
        return String(path[..<lastSlash])
    }

    /// The path of `url` as the cookie rules see it (`/` when empty).
    static func requestPath(of url: URL) -> String {
        let path = url.path
        return path.isEmpty ? "/" : path
    }

    /// Whether `url` is a secure origin for cookies (RFC 6265bis §5.7: a "secure" protocol): `https` or `wss`.
    ///
    /// Plain `http` to a loopback host is not one here (browsers and curl treat `localhost` as secure): any process
    /// on the machine can answer there, and a test server can say exactly what a remote one would.
    static func isSecureOrigin(_ url: URL) -> Bool {
        let scheme = url.scheme?.lowercased()
        return scheme == "https" || scheme == "wss"
    }

    /// RFC 6265bis §4.1.3: a name starting `__Secure-` needs `Secure`; one starting `__Host-` needs `Secure`, no
    /// `Domain` (host-only) and the path `/`. The prefixes are matched without regard to case (§5.7 step 20).
    static func keepsPrefixRules(_ cookie: StoredCookie) -> Bool {
        let name = cookie.name.lowercased()
        if name.hasPrefix("__secure-") { return cookie.isSecure }
        if name.hasPrefix("__host-") { return cookie.isSecure && cookie.isHostOnly && cookie.path == "/" }
        return true
    }

    static func isIPAddress(_ host: String) -> Bool {
        if host.contains(":") { return true }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts.allSatisfy { UInt8($0) != nil }
    }
}

/// ``StoredCookie``'s earlier name, kept for one release.
@available(*, deprecated, renamed: "StoredCookie", message: "renamed to avoid colliding with Hummingbird's Cookie")
public typealias Cookie = StoredCookie
