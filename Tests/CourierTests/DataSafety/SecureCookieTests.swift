import Foundation
import Testing
@testable import Courier
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// RFC 6265bis's rules for `Secure` cookies against a real server (httpbin over plain http, which echoes any
/// `Set-Cookie` it is asked for): a plain `http` response neither sets a `Secure` cookie nor replaces or deletes
/// one stored from `https`, and the name prefixes keep their promises.
@Suite(
    "Secure cookies from insecure origins (httpbin)",
    .enabled(ExternalServers.httpbin.skipMessage) { await HTTPBinServer.isRunning() }
)
struct SecureCookieTests {
    /// Asks httpbin (plain http) to answer with `setCookie`, through a session on `jar`.
    static func receive(_ setCookie: String, into jar: CookieJar) async throws {
        let base = try #require(HTTPBinServer.base)
        var components = try #require(URLComponents(url: base, resolvingAgainstBaseURL: true))
        components.path = "/response-headers"
        components.queryItems = [URLQueryItem(name: "Set-Cookie", value: setCookie)]
        let manager = SessionFixtures.manager { $0.httpCookieStorage = jar }
        defer { manager.invalidateSessionCancelingTasks(true) }
        let (_, response) = try await manager.data(for: URLRequest(url: try #require(components.url)))
        // The server did send it: what the jar keeps is the client's decision.
        #expect(response.value(forHTTPHeaderField: "Set-Cookie") == setCookie)
    }

    static func host() throws -> String {
        try #require(HTTPBinServer.base?.host)
    }

    @Test func aPlainHTTPResponseCannotSetASecureCookie() async throws {
        let jar = CookieJar()
        try await Self.receive("sid=planted; Secure; Path=/", into: jar)
        try await Self.receive("__Secure-sid=planted; Path=/", into: jar)
        try await Self.receive("__Host-sid=planted; Path=/", into: jar)
        #expect(jar.allCookies.isEmpty)
        try await Self.receive("theme=dark; Path=/", into: jar)
        #expect(jar.allCookies.map(\.name) == ["theme"], "an ordinary cookie is still stored")
    }

    @Test func aPlainHTTPResponseCannotReplaceOrDeleteASecureCookie() async throws {
        let jar = CookieJar()
        // As an https response from the same host would have stored it.
        jar.store(StoredCookie(name: "sid", value: "genuine", domain: try Self.host(), path: "/", isSecure: true))
        try await Self.receive("sid=planted; Path=/", into: jar)
        try await Self.receive("sid=planted; Path=/deeper", into: jar)
        try await Self.receive("sid=; Path=/; Max-Age=0", into: jar)
        #expect(jar.allCookies.map(\.value) == ["genuine"])
        let secureURL = try #require(URL(string: "https://\(try Self.host())/account"))
        #expect(jar.cookieHeader(for: secureURL) == "sid=genuine")
    }
}
