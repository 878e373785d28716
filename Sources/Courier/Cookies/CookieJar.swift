import Foundation
import Synchronization

/// Where an exchange keeps cookies between requests (RFC 6265 storage and retrieval rules).
///
/// Thread-safe. `.default` sessions and operations share ``processShared``; `.ephemeral` sessions each have their
/// own. A jar lives in memory and is written to a file and read back with ``write(to:includingSessionCookies:now:)``
/// and ``init(contentsOf:now:)``.
public final class CookieJar: Sendable {
    private let cookies = Mutex<[CookieKey: StoredCookie]>([:])

    private struct CookieKey: Hashable {
        let name: String
        let domain: String
        let path: String
    }

    /// The most cookies the jar keeps for one domain: 180, as Chromium does (RFC 6265 §6.1 asks for at least 50).
    /// The oldest go first when a new one would exceed it.
    public static let maximumCookiesPerDomain = 180
    /// The most cookies the jar keeps in all: 3000 (RFC 6265 §6.1's minimum). The oldest go first.
    public static let maximumCookies = 3000

    /// Creates an empty jar.
    public init() {}

    /// Every cookie that has not expired.
    public var allCookies: [StoredCookie] {
        let now = Date()
        return cookies.withLock { Array($0.values) }.filter { !$0.isExpired(at: now) }
    }

    /// Stores the cookies a response to `url` sets; an expired one deletes its namesake.
    ///
    /// As RFC 6265bis §5.7 step 22 asks (and curl and browsers do), a response from an origin that is not secure
    /// (plain `http`) neither sets, replaces nor deletes a cookie whose name is that of a stored `Secure` cookie
    /// for an overlapping domain and path: one tampered `http` response cannot plant or overwrite a session cookie
    /// later sent over `https`.
    /// - Parameters:
    ///   - headers: The `Set-Cookie` header values, one per field.
    ///   - url: The URL of the request the response answers.
    ///   - now: The current time, for `Max-Age` and expiry dates. Default now.
    public func store(setCookieHeaders headers: [String], for url: URL, now: Date = Date()) {
        let parsed = headers.compactMap { SetCookieParser.cookie(from: $0, for: url, now: now) }
        guard !parsed.isEmpty else { return }
        let fromSecureOrigin = CookieRules.isSecureOrigin(url)
        cookies.withLock { jar in
            for cookie in parsed {
                if !fromSecureOrigin, Self.shadowsSecureCookie(cookie, in: jar) { continue }
                let key = CookieKey(name: cookie.name, domain: cookie.domain, path: cookie.path)
                if cookie.isExpired(at: now) {
                    jar[key] = nil
                } else {
                    var stored = cookie
                    if let existing = jar[key] { stored.createdAt = existing.createdAt }
                    jar[key] = stored
                }
            }
            Self.evictBeyondLimits(&jar, domains: Set(parsed.map(\.domain)), now: now)
        }
    }

    /// Stores one cookie as is (within the jar's limits, which may evict older cookies).
    public func store(_ cookie: StoredCookie) {
        cookies.withLock { jar in
            jar[CookieKey(name: cookie.name, domain: cookie.domain, path: cookie.path)] = cookie
            Self.evictBeyondLimits(&jar, domains: [cookie.domain], now: Date())
        }
    }

    /// Whether `cookie` (from an origin that is not secure) would shadow a stored `Secure` cookie: the same name, a
    /// domain that domain-matches the other's either way, and a path within the stored cookie's path.
    private static func shadowsSecureCookie(_ cookie: StoredCookie, in jar: [CookieKey: StoredCookie]) -> Bool {
        jar.values.contains { stored in
            stored.isSecure && stored.name == cookie.name
                && (CookieRules.domain(stored.domain, matches: cookie.domain) || CookieRules.domain(cookie.domain, matches: stored.domain))
                && CookieRules.path(cookie.path, matches: stored.path)
        }
    }

    /// Keeps the jar within ``maximumCookiesPerDomain`` for each of `domains` (the ones just stored to) and within
    /// ``maximumCookies``: expired cookies go first, then the oldest (RFC 6265 §5.3 step 12's eviction).
    private static func evictBeyondLimits(_ jar: inout [CookieKey: StoredCookie], domains: Set<String>, now: Date) {
        func evictOldest(_ keys: [CookieKey], keeping limit: Int) {
            guard keys.count > limit else { return }
            let oldestFirst = keys.sorted { jar[$0]?.createdAt ?? .distantPast < jar[$1]?.createdAt ?? .distantPast }
            for key in oldestFirst.prefix(keys.count - limit) { jar[key] = nil }
        }
        for domain in domains {
            let keys = jar.keys.filter { $0.domain == domain }
            guard keys.count > maximumCookiesPerDomain else { continue }
            for key in keys where jar[key]?.isExpired(at: now) == true { jar[key] = nil }
            evictOldest(jar.keys.filter { $0.domain == domain }, keeping: maximumCookiesPerDomain)
        }
        guard jar.count > maximumCookies else { return }
        jar = jar.filter { !$0.value.isExpired(at: now) }
        evictOldest(Array(jar.keys), keeping: maximumCookies)
    }

    /// The cookies to send to `url`, longest path first (RFC 6265 §5.4).
    public func cookies(for url: URL, now: Date = Date()) -> [StoredCookie] {
        cookies.withLock { jar in
            jar = jar.filter { !$0.value.isExpired(at: now) }
            return jar.values.filter { $0.matches(url, at: now) }
        }
        .sorted { ($0.path.count, $1.createdAt) > ($1.path.count, $0.createdAt) }
    }

    /// The `Cookie` header value for `url`, or `nil` when no cookie matches.
    public func cookieHeader(for url: URL, now: Date = Date()) -> String? {
        let matching = cookies(for: url, now: now)
        guard !matching.isEmpty else { return nil }
        return matching.map { "\($0.name)=\($0.value)" }.joined(separator: "; ")
    }

    /// Removes every cookie.
    public func removeAll() {
        cookies.withLock { $0.removeAll() }
    }
}
