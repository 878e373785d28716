import Foundation
import Testing
@testable import Courier
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Cache: Cache-Control, freshness and age (RFC 9111)")
struct CacheRulesTests {
    static let http = DateFormatter.httpDate

    static func entry(_ fields: [(String, String)], status: Int = 200, received: Date, sent: Date? = nil) -> CachedEntry {
        CachedEntry(
            url: "https://example.org/a", statusCode: status, httpVersion: "HTTP/1.1",
            headerFields: fields.map { .init(name: $0.0, value: $0.1) }, selectingHeaders: [:],
            requestTime: sent ?? received, responseTime: received, body: Data("body".utf8)
        )
    }

    @Test func directivesAreParsedWithQuotesArgumentsAndCase() {
        let control = CacheControl(cacheControl: [#"Max-Age=60, private="Set-Cookie, X", NO-CACHE"#, "must-revalidate"])
        #expect(control.maxAge == 60)
        #expect(control.isPrivate && control.noCache && control.mustRevalidate)
        #expect(!control.noStore)
        #expect(CacheControl(cacheControl: ["max-age=abc"]).maxAge == 0, "an invalid max-age is stale")
        #expect(CacheControl(cacheControl: ["max-age=99999999999999999999"]).maxAge == 1 << 31)
        #expect(CacheControl(cacheControl: ["max-stale"]).maxStale == Int.max)
        #expect(CacheControl(cacheControl: [], pragma: ["no-cache"]).noCache)
        #expect(!CacheControl(cacheControl: ["max-age=5"], pragma: ["no-cache"]).noCache, "Cache-Control wins over Pragma")
    }

    @Test func lifetimeComesFromMaxAgeThenExpiresThenLastModified() {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let date = Self.http.string(from: now)
        #expect(Freshness.lifetime(of: Self.entry([("Cache-Control", "max-age=30"), ("Expires", Self.http.string(from: now + 999))], received: now)) == 30)
        #expect(Freshness.lifetime(of: Self.entry([("Date", date), ("Expires", Self.http.string(from: now + 120))], received: now)) == 120)
        #expect(Freshness.lifetime(of: Self.entry([("Date", date), ("Expires", "0")], received: now)) == 0)
        #expect(Freshness.lifetime(of: Self.entry([("Date", date), ("Last-Modified", Self.http.string(from: now - 1000))], received: now)) == 100)
        #expect(Freshness.lifetime(of: Self.entry([("Date", date), ("Last-Modified", Self.http.string(from: now - 30 * 86400))], received: now)) == 86400)
        #expect(Freshness.lifetime(of: Self.entry([("Date", date)], received: now)) == 0)
    }

    @Test func ageCountsTheAgeHeaderTheDelayAndTheTimeSinceArrival() {
        let received = Date(timeIntervalSince1970: 1_800_000_000)
        let entry = Self.entry([("Date", Self.http.string(from: received - 10)), ("Age", "5")], received: received, sent: received - 2)
        // apparent age 10 wins over 5 + 2; then 30 s in the cache.
        #expect(Freshness.age(of: entry, now: received + 30) == 40)
        let fresh = Self.entry([("Cache-Control", "max-age=60"), ("Date", Self.http.string(from: received))], received: received)
        #expect(Freshness.isFresh(fresh, for: CacheControl(cacheControl: []), now: received + 59))
        #expect(!Freshness.isFresh(fresh, for: CacheControl(cacheControl: []), now: received + 61))
        #expect(!Freshness.isFresh(fresh, for: CacheControl(cacheControl: ["no-cache"]), now: received + 1))
        #expect(!Freshness.isFresh(fresh, for: CacheControl(cacheControl: ["max-age=10"]), now: received + 11))
        #expect(!Freshness.isFresh(fresh, for: CacheControl(cacheControl: ["min-fresh=30"]), now: received + 40))
        #expect(Freshness.isFresh(fresh, for: CacheControl(cacheControl: ["max-stale=10"]), now: received + 65))
        let strict = Self.entry([("Cache-Control", "max-age=60, must-revalidate")], received: received)
        #expect(!Freshness.isFresh(strict, for: CacheControl(cacheControl: ["max-stale"]), now: received + 65))
    }

    @Test func storabilityFollowsStatusNoStoreVaryAndAuthorization() {
        let get = URLRequest(url: URL(string: "https://example.org/a")!)
        var authorized = get
        authorized.setValue("Bearer t", forHTTPHeaderField: "Authorization")
        let none = CacheControl(cacheControl: [])
        #expect(CacheStage.mayStore(status: 200, fields: [], request: get, requestControl: none))
        #expect(!CacheStage.mayStore(status: 206, fields: [], request: get, requestControl: none))
        #expect(!CacheStage.mayStore(status: 500, fields: [], request: get, requestControl: none))
        #expect(!CacheStage.mayStore(status: 200, fields: [("Cache-Control", "no-store")], request: get, requestControl: none))
        #expect(!CacheStage.mayStore(status: 200, fields: [], request: get, requestControl: CacheControl(cacheControl: ["no-store"])))
        #expect(!CacheStage.mayStore(status: 200, fields: [("Vary", "Accept, *")], request: get, requestControl: none))
        #expect(!CacheStage.mayStore(status: 200, fields: [], request: authorized, requestControl: none))
        #expect(CacheStage.mayStore(status: 200, fields: [("Cache-Control", "public, max-age=5")], request: authorized, requestControl: none))
    }
}

extension DateFormatter {
    /// IMF-fixdate, as HTTP writes dates.
    static var httpDate: DateFormatter {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter
    }
}
