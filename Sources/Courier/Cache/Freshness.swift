import Foundation

/// How old a stored response is and how long it stays fresh (RFC 9111 §4.2), as pure functions of its head and the
/// clock.
enum Freshness {
    /// Statuses a response may be stored for without explicit freshness, and given heuristic freshness
    /// (RFC 9110 §15.1: "heuristically cacheable"). Courier stores only these.
    static let heuristicallyCacheable: Set<Int> = [200, 203, 204, 300, 301, 308, 404, 405, 410, 414, 501]

    /// The freshness lifetime in seconds: `max-age`, else `Expires` − `Date`, else 10 % of the time since
    /// `Last-Modified` (at most a day), else 0.
    static func lifetime(of entry: CachedEntry, date: Date? = nil) -> TimeInterval {
        let control = entry.cacheControl
        if let maxAge = control.maxAge { return TimeInterval(maxAge) }
        let date = date ?? Self.date(of: entry)
        if let expiresText = entry.value("Expires") {
            // An invalid Expires (such as "0") means already expired.
            guard let expires = HTTPDate.parse(expiresText) else { return 0 }
            return Swift.max(0, expires.timeIntervalSince(date))
        }
        if let lastModified = entry.value("Last-Modified").flatMap(HTTPDate.parse), date > lastModified {
            return Swift.min(date.timeIntervalSince(lastModified) / 10, 24 * 60 * 60)
        }
        return 0
    }

    /// The response's `Date`, or when it arrived when it has none (or an unreadable one).
    static func date(of entry: CachedEntry) -> Date {
        entry.value("Date").flatMap(HTTPDate.parse) ?? entry.responseTime
    }

    /// The current age in seconds (RFC 9111 §4.2.3).
    static func age(of entry: CachedEntry, now: Date, date: Date? = nil) -> TimeInterval {
        let date = date ?? Self.date(of: entry)
        let ageValue = entry.value("Age").flatMap { CacheControl.seconds($0.trimmingCharacters(in: .whitespaces)) } ?? 0
        let apparentAge = Swift.max(0, entry.responseTime.timeIntervalSince(date))
        let responseDelay = Swift.max(0, entry.responseTime.timeIntervalSince(entry.requestTime))
        let correctedInitialAge = Swift.max(apparentAge, TimeInterval(ageValue) + responseDelay)
        return correctedInitialAge + Swift.max(0, now.timeIntervalSince(entry.responseTime))
    }

    /// Whether the entry may answer a request with directives `request` now without asking the server.
    static func isFresh(_ entry: CachedEntry, for request: CacheControl, now: Date) -> Bool {
        let control = entry.cacheControl
        if control.noCache || request.noCache { return false }
        // The Date header is parsed once for both.
        let date = date(of: entry)
        let lifetime = lifetime(of: entry, date: date)
        let age = age(of: entry, now: now, date: date)
        if let maxAge = request.maxAge, age > TimeInterval(maxAge) { return false }
        let wanted = TimeInterval(request.minFresh ?? 0)
        if lifetime - age > wanted { return true }
        // A stale response is acceptable when the request allows it, unless the response forbids it.
        if let maxStale = request.maxStale, !control.mustRevalidate {
            return maxStale == Int.max || age - lifetime <= TimeInterval(maxStale)
        }
        return false
    }
}
