import Foundation
import Testing
@testable import Courier
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Cookies")
struct CookieTests {
    let url = URL(string: "http://www.example.test/docs/page")!

    let secureURL = URL(string: "https://www.example.test/docs/page")!

    @Test func parsesAttributes() throws {
        let now = Date(timeIntervalSince1970: 1_000_000)
        let cookie = try #require(SetCookieParser.cookie(
            from: "id=a3f; Path=/docs; Domain=.example.test; Secure; HttpOnly; Max-Age=60", for: secureURL, now: now))
        #expect(cookie.name == "id" && cookie.value == "a3f")
        #expect(cookie.domain == "example.test" && !cookie.isHostOnly)
        #expect(cookie.path == "/docs" && cookie.isSecure && cookie.isHTTPOnly)
        #expect(cookie.expiresAt == now.addingTimeInterval(60))
    }

    @Test func defaultsAndRejections() throws {
        let cookie = try #require(SetCookieParser.cookie(from: "a=b", for: url))
        #expect(cookie.isHostOnly && cookie.domain == "www.example.test" && cookie.path == "/docs")
        #expect(SetCookieParser.cookie(from: "a=b; Domain=other.test", for: url) == nil, "foreign domain")
        #expect(SetCookieParser.cookie(from: "novalue", for: url) == nil)
        #expect(SetCookieParser.cookie(from: "=x", for: url) == nil)
    }

    @Test func maxAgeWinsOverExpires() throws {
        let now = Date(timeIntervalSince1970: 1_000_000)
        let cookie = try #require(SetCookieParser.cookie(
            from: "a=b; Expires=Wed, 09 Jun 2100 10:18:14 GMT; Max-Age=5", for: url, now: now))
        #expect(cookie.expiresAt == now.addingTimeInterval(5))
        let expires = try #require(SetCookieParser.cookie(from: "a=b; Expires=Wed, 09 Jun 2100 10:18:14 GMT", for: url))
        #expect(expires.expiresAt == Date(timeIntervalSince1970: 4_116_219_494))
    }

    @Test func scopingRules() {
        let jar = CookieJar()
        jar.store(setCookieHeaders: [
            "host=1",
            "domain=2; Domain=example.test; Path=/",
            "secure=3; Secure; Path=/",
            "deep=4; Path=/docs/deep",
        ], for: secureURL)
        func names(_ string: String) -> [String] { jar.cookies(for: URL(string: string)!).map(\.name).sorted() }
        #expect(names("http://www.example.test/docs/x") == ["domain", "host"])
        #expect(names("https://www.example.test/docs/deep/x") == ["deep", "domain", "host", "secure"])
        #expect(names("http://api.example.test/") == ["domain"], "host-only cookie stays on its host")
        #expect(names("http://www.example.test/docsother") == ["domain"], "path matches at a / boundary only")
        #expect(names("http://example.org/") == [])
    }

    @Test func expiryRemovesAndOrdersByPath() {
        let jar = CookieJar()
        jar.store(setCookieHeaders: ["a=1; Path=/", "b=2; Path=/docs"], for: url)
        #expect(jar.cookieHeader(for: url) == "b=2; a=1", "longer path first")
        jar.store(setCookieHeaders: ["b=gone; Path=/docs; Max-Age=0"], for: url)
        #expect(jar.cookieHeader(for: url) == "a=1")
        jar.store(StoredCookie(name: "old", value: "x", domain: "www.example.test", expiresAt: Date(timeIntervalSinceNow: -1)))
        #expect(jar.cookieHeader(for: url) == "a=1")
    }

    @Test func onlyASecureOriginSetsASecureCookie() {
        #expect(SetCookieParser.cookie(from: "sid=evil; Secure; Path=/", for: url) == nil, "Secure from http")
        #expect(SetCookieParser.cookie(from: "sid=good; Secure; Path=/", for: secureURL)?.isSecure == true)
        #expect(SetCookieParser.cookie(from: "sid=1; Secure", for: URL(string: "http://127.0.0.1:8080/")!) == nil,
                "loopback over plain http is not a secure origin here")
    }

    /// RFC 6265bis §4.1.3, with the prefixes matched without regard to case.
    @Test(arguments: [
        ("__Secure-id=1; Path=/", false), ("__Secure-id=1; Secure; Path=/", true), ("__SECURE-id=1; Path=/", false),
        ("__Host-id=1; Secure; Path=/", true), ("__Host-id=1; Secure", false), ("__Host-id=1; Path=/", false),
        ("__Host-id=1; Secure; Path=/; Domain=example.test", false), ("__host-id=1; Secure; Path=/docs", false),
    ])
    func namePrefixesKeepTheirPromises(header: String, accepted: Bool) {
        #expect((SetCookieParser.cookie(from: header, for: secureURL) != nil) == accepted, "\(header)")
    }

    @Test func anInsecureOriginCannotShadowASecureCookie() {
        let jar = CookieJar()
        jar.store(setCookieHeaders: ["sid=good; Secure; Path=/; Domain=example.test"], for: secureURL)
        // Same name, overlapping domain and path, from plain http: set, replace and delete are all ignored.
        jar.store(setCookieHeaders: ["sid=evil; Path=/"], for: url)
        jar.store(setCookieHeaders: ["sid=evil; Path=/docs; Domain=example.test"], for: url)
        jar.store(setCookieHeaders: ["sid=gone; Path=/; Max-Age=0; Domain=example.test"], for: url)
        #expect(jar.cookieHeader(for: secureURL) == "sid=good")
        #expect(jar.allCookies.count == 1)
        // Another name, or a path outside the Secure cookie's, is stored as usual.
        let scoped = CookieJar()
        scoped.store(setCookieHeaders: ["sid=good; Secure; Path=/docs"], for: secureURL)
        scoped.store(setCookieHeaders: ["sid=other; Path=/", "theme=dark; Path=/"], for: url)
        #expect(scoped.allCookies.count == 3)
        // From https the Secure cookie is replaced as usual.
        jar.store(setCookieHeaders: ["sid=new; Secure; Path=/; Domain=example.test"], for: secureURL)
        #expect(jar.cookieHeader(for: secureURL) == "sid=new")
    }

    @Test func ipHostsNeverDomainMatch() {
        #expect(!CookieRules.domain("1.2.3.4", matches: "2.3.4"))
        #expect(CookieRules.domain("a.b.test", matches: "b.test"))
        #expect(!CookieRules.domain("ab.test", matches: "b.test"))
    }

    @Test func setSentBackScopedAndDeletedAgainstTheServer() async throws {
        let jar = CookieJar()
        let set = try await Fixtures.exchange("/cookies/set?flavour=oat&size=big") { $0.cookieJar = jar }
        #expect(set.redirectCount == 1, "httpbin's /cookies/set redirects to /cookies")
        let sent = try #require(try Fixtures.json(set)["cookies"] as? [String: String])
        #expect(sent == ["flavour": "oat", "size": "big"])

        _ = try await Fixtures.exchange("/cookies/set-attrs?name=scoped&value=1&path=/cookies/only") { $0.cookieJar = jar }
        let outside = try Fixtures.json(try await Fixtures.exchange("/cookies") { $0.cookieJar = jar })
        #expect((outside["cookies"] as? [String: String])?["scoped"] == nil)

        _ = try await Fixtures.exchange("/cookies/delete?flavour") { $0.cookieJar = jar }
        let after = try Fixtures.json(try await Fixtures.exchange("/cookies") { $0.cookieJar = jar })
        #expect(after["cookies"] as? [String: String] == ["size": "big"])
    }

    @Test func requestsThatOptOutSendNoCookies() async throws {
        let jar = CookieJar()
        _ = try await Fixtures.exchange("/cookies/set?k=v") { $0.cookieJar = jar }
        var request = URLRequest(url: try await Fixtures.url("/cookies"))
        request.httpShouldHandleCookies = false
        var configuration = ExchangeConfiguration(transport: Fixtures.transport)
        configuration.cookieJar = jar
        let result = try await Exchange(request: request, configuration: configuration).result()
        #expect(try Fixtures.json(result)["cookies"] as? [String: String] == [:])
    }
}
