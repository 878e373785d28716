import Foundation
import Testing
@testable import Courier
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `DefaultHeadersStage` against httpbin, which echoes the header fields it received: the fields Courier adds are on
/// the wire and in the exchange's record of what it sent (what `-v` and the trace log show), a caller's own value is
/// never replaced, and a session's `Authorization` stays with its origin across a redirect (sessions × redirects:
/// the stage adds it once, the redirect rule decides what a later hop keeps).
@Suite(
    "Default headers: the one stage that adds them, against httpbin",
    .enabled(ExternalServers.httpbin.skipMessage) { await HTTPBinServer.isRunning() }
)
struct DefaultHeadersTests {
    static func httpbin(_ path: String) throws -> URL {
        try #require(URL(string: path, relativeTo: HTTPBinServer.base)?.absoluteURL)
    }

    /// httpbin's echo of the request's header fields, by lowercased name.
    static func echoedHeaders(_ data: Data) throws -> [String: String] {
        let headers = try #require(try SessionFixtures.json(data)["headers"] as? [String: String])
        return Dictionary(headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { first, _ in first })
    }

    @Test func aPlainRequestGoesOutWithEveryDefaultAndTheRecordSaysSo() async throws {
        var request = URLRequest(url: try Self.httpbin("/anything"))
        request.httpMethod = "POST"
        request.httpBody = Data("abc".utf8)
        var configuration = ExchangeConfiguration(transport: Fixtures.transport)
        configuration.settings.additionalHeaders = ["X-Session": "yes"]
        let result = try await Exchange(request: request, configuration: configuration).result()
        let echoed = try Self.echoedHeaders(try #require(result.data))
        #expect(echoed["user-agent"] == DefaultRequestHeaders.processUserAgent)
        #expect(echoed["accept-encoding"] == "gzip, deflate")
        #expect(echoed["content-length"] == "3")
        #expect(echoed["x-session"] == "yes")
        let recorded = try #require(result.metrics.transactions.first?.request)
        for name in ["User-Agent", "Accept-Encoding", "Content-Length", "X-Session"] {
            #expect(recorded.value(forHTTPHeaderField: name) == echoed[name.lowercased()], "\(name) as recorded")
        }
        #expect(request.value(forHTTPHeaderField: "User-Agent") == nil, "the caller's request is not changed")
    }

    @Test func theRequestsOwnFieldsAreNeverReplaced() async throws {
        var request = URLRequest(url: try Self.httpbin("/headers"))
        request.setValue("mine/1", forHTTPHeaderField: "user-agent")
        request.setValue("request", forHTTPHeaderField: "X-Session")
        request.setValue("identity", forHTTPHeaderField: "Accept-Encoding")
        let session = SessionFixtures.manager { $0.httpAdditionalHeaders = ["X-Session": "session", "User-Agent": "session/1"] }
        defer { session.invalidateSessionCancelingTasks(true) }
        let (data, _) = try await session.data(for: request)
        let echoed = try Self.echoedHeaders(data)
        #expect(echoed["user-agent"] == "mine/1")
        #expect(echoed["x-session"] == "request")
        #expect(echoed["accept-encoding"] == "identity")

        let (plain, _) = try await session.data(for: URLRequest(url: try Self.httpbin("/headers")))
        #expect(try Self.echoedHeaders(plain)["user-agent"] == "session/1", "the session's own user agent before Courier's")
    }

    @Test func aRangeRequestAsksForIdentityAndEveryAdditionalFieldGoesOutOnce() async throws {
        var request = URLRequest(url: try Self.httpbin("/anything"))
        request.setValue("bytes=0-", forHTTPHeaderField: "range")
        var configuration = ExchangeConfiguration(transport: Fixtures.transport)
        configuration.settings.additionalHeaders = ["x-lower": "a", "X-Upper": "b", "user-agent": "additional/1"]
        let result = try await Exchange(request: request, configuration: configuration).result()
        let echoed = try Self.echoedHeaders(try #require(result.data))
        #expect(echoed["accept-encoding"] == "identity", "a range is asked for in the stored form")
        #expect(echoed["x-lower"] == "a")
        #expect(echoed["x-upper"] == "b")
        #expect(echoed["user-agent"] == "additional/1", "an additional field counts as the request's own")
        let recorded = try #require(result.metrics.transactions.first?.request.allHTTPHeaderFields)
        #expect(recorded["X-Lower"] == "a", "stored under the name setValue would give it: \(recorded)")
        #expect(recorded.keys.filter { $0.lowercased() == "user-agent" }.count == 1, "\(recorded)")
    }

    @Test func theSettingsTurnTheDefaultsOff() async throws {
        let session = SessionFixtures.manager {
            $0.contentDecoding = nil
            $0.requestSettings.userAgent = nil
        }
        defer { session.invalidateSessionCancelingTasks(true) }
        let (data, _) = try await session.data(for: URLRequest(url: try Self.httpbin("/headers")))
        let echoed = try Self.echoedHeaders(data)
        // httpbin reports the fields it got, and gunicorn adds neither of these.
        #expect(echoed["accept-encoding"] == nil, "\(echoed)")
        #expect(echoed["user-agent"] == nil, "\(echoed)")
        #expect(echoed["host"] != nil, "the control: the echo has the fields that were sent")
    }

    /// A session's `Authorization` goes to the request's origin and to a same-origin redirect target, never to
    /// another origin (httpbin's `redirect-to` to `localhost` instead of `127.0.0.1`).
    @Test(arguments: [false, true])
    func aSessionsAuthorizationStaysWithItsOriginAcrossARedirect(crossOrigin: Bool) async throws {
        let base = try #require(HTTPBinServer.base)
        var target = try #require(URLComponents(url: try Self.httpbin("/anything"), resolvingAgainstBaseURL: false))
        if crossOrigin { target.host = base.host == "localhost" ? "127.0.0.1" : "localhost" }
        let location = try #require(target.url?.absoluteString.addingPercentEncoding(withAllowedCharacters: .alphanumerics))
        let session = SessionFixtures.manager { $0.httpAdditionalHeaders = ["Authorization": "Bearer s3cret", "X-Session": "yes"] }
        defer { session.invalidateSessionCancelingTasks(true) }
        let (data, response) = try await session.data(for: URLRequest(url: try Self.httpbin("/redirect-to?url=\(location)")))
        #expect(response.url?.host == target.host, "the redirect was followed")
        let echoed = try Self.echoedHeaders(data)
        #expect(echoed["x-session"] == "yes", "other session fields go to every hop")
        if crossOrigin {
            #expect(echoed["authorization"] == nil, "\(echoed)")
        } else {
            #expect(echoed["authorization"] == "Bearer s3cret")
        }
    }
}
