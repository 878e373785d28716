import Foundation
import Testing
@testable import Courier
import CourierTesting
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Pipeline: CookieStage against StubTransport")
struct CookieStageTests {
    static let setsAndRedirects = StubTransport(routes: [
        "/login": StubResponse(statusCode: 302, headers: [("Set-Cookie", "session=abc; Path=/"), ("Location", "/home")]),
        "/home": .text("home"),
    ])

    @Test func aCookieSetOnARedirectGoesWithTheNextHop() async throws {
        let stub = Self.setsAndRedirects
        stub.removeAllRequests()
        let jar = CookieJar()
        _ = try await StageTests.exchange("/login", over: stub) { $0.cookieJar = jar }.result()
        #expect(stub.requests.map { $0.value(forHTTPHeaderField: "Cookie") } == [nil, "session=abc"])
        #expect(jar.cookieHeader(for: StageTests.origin) == "session=abc")
    }

    @Test func aRequestThatHandlesNoCookiesNeitherSendsNorStoresThem() async throws {
        let stub = Self.setsAndRedirects
        stub.removeAllRequests()
        let jar = CookieJar()
        jar.store(setCookieHeaders: ["old=1"], for: StageTests.origin)
        var request = URLRequest(url: URL(string: "/login", relativeTo: StageTests.origin)!.absoluteURL)
        request.httpShouldHandleCookies = false
        var configuration = ExchangeConfiguration(transport: stub)
        configuration.cookieJar = jar
        _ = try await Exchange(request: request, configuration: configuration).result()
        #expect(stub.requests.allSatisfy { $0.value(forHTTPHeaderField: "Cookie") == nil })
        #expect(jar.cookieHeader(for: StageTests.origin) == "old=1")
    }
}
