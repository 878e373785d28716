import Foundation

/// Parses `Set-Cookie` header values (RFC 6265bis §5.6, §5.7) into ``StoredCookie`` values.
enum SetCookieParser {
    /// The longest name and value together that a cookie may have: RFC 6265 §6.1's minimum, which browsers also
    /// keep to as a maximum. Longer cookies are ignored.
    static let maximumNameAndValueBytes = 4096

    /// The cookie a `Set-Cookie` value sets for a response to `url`, or `nil` when the value is
    /// malformed or the server may not set it (a `Domain` the host does not belong to, or that is a public suffix
    /// other than the host itself, per `suffixes`; `Secure` from an origin that is not secure; a `__Secure-` or
    /// `__Host-` name without what its prefix demands), or it is longer than ``maximumNameAndValueBytes``.
    static func cookie(
        from header: String, for url: URL, now: Date = Date(), suffixes: PublicSuffixList = .system
    ) -> StoredCookie? {
        guard let host = url.host?.lowercased(), !host.isEmpty else { return nil }
        var parts = header.split(separator: ";", omittingEmptySubsequences: false)[...]
        guard let pair = parts.popFirst(), let equals = pair.firstIndex(of: "=") else { return nil }
        let name = pair[..<equals].trimmingCharacters(in: .whitespaces)
        let value = pair[pair.index(after: equals)...].trimmingCharacters(in: .whitespaces)
        guard !name.isEmpty, name.utf8.count + value.utf8.count <= maximumNameAndValueBytes else { return nil }

        var cookie = StoredCookie(name: name, value: value, domain: host, path: CookieRules.defaultPath(for: url), createdAt: now)
        var maxAgeExpiry: Date?
        var expiresExpiry: Date?
        for attribute in parts {
            let (key, attributeValue) = split(attribute)
            switch key.lowercased() {
            case "expires":
                expiresExpiry = HTTPDate.parse(attributeValue)
            case "max-age":
                guard let seconds = Int(attributeValue) else { continue }
                maxAgeExpiry = seconds <= 0 ? .distantPast : now.addingTimeInterval(TimeInterval(seconds))
            case "domain":
                var domain = attributeValue.lowercased()
                if domain.hasPrefix(".") { domain.removeFirst() }
                guard !domain.isEmpty else { continue }
                guard CookieRules.domain(host, matches: domain) else { return nil }
                if suffixes.isPublicSuffix(domain) {
                    // §5.3 step 5: a public suffix is accepted only as the host itself, and then for that host alone.
                    guard domain == host else { return nil }
                    continue
                }
                cookie.domain = domain
                cookie.isHostOnly = false
            case "path":
                cookie.path = attributeValue.hasPrefix("/") ? attributeValue : CookieRules.defaultPath(for: url)
            case "secure":
                cookie.isSecure = true
            case "httponly":
                cookie.isHTTPOnly = true
            default:
                continue
            }
        }
        // Max-Age wins over Expires (§5.3 step 3).
        cookie.expiresAt = maxAgeExpiry ?? expiresExpiry
        // RFC 6265bis §5.7 steps 16–21: only a secure origin sets a Secure cookie, and the name prefixes promise it.
        if cookie.isSecure && !CookieRules.isSecureOrigin(url) { return nil }
        guard CookieRules.keepsPrefixRules(cookie) else { return nil }
        return cookie
    }

    private static func split(_ attribute: Substring) -> (String, String) {
        guard let equals = attribute.firstIndex(of: "=") else {
            return (attribute.trimmingCharacters(in: .whitespaces), "")
        }
        return (
            attribute[..<equals].trimmingCharacters(in: .whitespaces),
            attribute[attribute.index(after: equals)...].trimmingCharacters(in: .whitespaces)
        )
    }
}
