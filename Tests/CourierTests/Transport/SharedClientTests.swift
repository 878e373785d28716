import AsyncHTTPClient
import Foundation
import NIOCore
import NIOSSL
import Testing
@testable import Courier
import CourierTestServer
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A transport that sends through an `HTTPClient` the application owns, against the in-process servers.
@Suite("Transport: an HTTPClient the application owns", .timeLimit(.minutes(1)))
struct SharedClientTests {
    static func makeClient(trusting authority: Data? = nil) throws -> HTTPClient {
        var configuration = EngineTransport.sharedClientConfiguration
        if let authority {
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.trustRoots = .certificates([try NIOSSLCertificate(bytes: Array(authority), format: .der)])
            configuration.tlsConfiguration = tls
        }
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    /// Runs `body` with a client of the application's and shuts it down afterwards, also when `body` throws:
    /// AsyncHTTPClient traps on a client released without a shutdown, which would end the whole test process on one
    /// failed request. A client `body` already shut down is left as it is.
    static func withClient(trusting authority: Data? = nil, _ body: (HTTPClient) async throws -> Void) async throws {
        let client = try makeClient(trusting: authority)
        do {
            try await body(client)
        } catch {
            try? await client.shutdown()
            throw error
        }
        try? await client.shutdown()
    }

    @Test func requestsGoThroughTheClientAndShutdownsLeaveItRunning() async throws {
        try await Self.withClient { client in try await requestsGoThroughTheClientAndShutdownsLeaveItRunning(client) }
    }

    func requestsGoThroughTheClientAndShutdownsLeaveItRunning(_ client: HTTPClient) async throws {
        let transport = EngineTransport(sharing: client)
        var configuration = SessionConfiguration.ephemeral
        configuration.transport = transport
        let manager = URLSessionManager(configuration: configuration)
        let url = try await Fixtures.url("/redirect/1")

        // Courier's stages, not the client, followed the redirect: the client was made to follow none.
        let (data, response) = try await manager.data(for: URLRequest(url: url))
        #expect(response.statusCode == 200)
        #expect(response.url?.path == "/get")
        #expect(!data.isEmpty)

        manager.invalidateSessionCancelingTasks(true)
        try await transport.shutdown()
        // The application's client still works…
        let direct = try await client.execute(HTTPClientRequest(url: try await Fixtures.url("/get").absoluteString), timeout: .seconds(10))
        #expect(direct.status == .ok)
        _ = try await direct.body.collect(upTo: 1 << 20)

        // …and the transport sent through it: once the application shuts it down, the transport's requests fail.
        let second = EngineTransport(sharing: client)
        _ = try await Exchange(request: URLRequest(url: try await Fixtures.url("/get")), configuration: .init(transport: second)).result()
        try await client.shutdown()
        await #expect(throws: (any Error).self) {
            _ = try await Exchange(request: URLRequest(url: try await Fixtures.url("/get")), configuration: .init(transport: second)).result()
        }
    }

    @Test func httpsIsTrustedByTheClientsOwnTLSConfiguration() async throws {
        let server = try await TestServer.start(tls: TestServerTLS(http2: true))
        defer { Task { try? await server.shutdown() } }
        try await Self.withClient(trusting: server.certificateAuthorityDER) { client in
            let transport = EngineTransport(sharing: client)
            let url = try #require(URL(string: "/get", relativeTo: server.baseURL)?.absoluteURL)
            let result = try await Exchange(request: URLRequest(url: url), configuration: .init(transport: transport)).result()
            #expect(result.response.statusCode == 200)
            #expect(result.metrics.transactions.last?.httpVersion == "HTTP/2.0")
            try await transport.shutdown()
            try await client.shutdown()
        }
    }

    @Test func whatTheClientCannotGiveIsRefusedBeforeAnythingIsSent() async throws {
        let server = try await TestServer.start(tls: TestServerTLS(http2: false))
        let client = try Self.makeClient(trusting: server.certificateAuthorityDER)
        defer { Task { try? await client.shutdown(); try? await server.shutdown() } }
        let url = try #require(URL(string: "/get", relativeTo: server.baseURL)?.absoluteURL)

        var pinned = EngineTransport.Configuration()
        let host = try #require(url.host)
        pinned.securityPolicies = [host: SecurityPolicy(pinningMode: .publicKey, pinnedCertificates: [])]
        let refusesPin = EngineTransport(sharing: client, configuration: pinned)
        let pinError = await #expect(throws: SharedClientError.self) {
            _ = try await Exchange(request: URLRequest(url: url), configuration: .init(transport: refusesPin)).result()
        }
        #expect(pinError == .securityPolicyNeedsOwnClient(host: host))
        #expect(pinError?.localizedDescription.contains("EngineTransport(configuration:)") == true)

        var proxied = EngineTransport.Configuration()
        proxied.proxy = .all(try ProxyServer(url: "http://127.0.0.1:9"))
        let refusesProxy = EngineTransport(sharing: client, configuration: proxied)
        await #expect(throws: SharedClientError.self) {
            _ = try await Exchange(request: URLRequest(url: try await Fixtures.url("/get")), configuration: .init(transport: refusesProxy)).result()
        }
        #expect(server.requestLog.count == 0, "nothing reached the server")
    }
}
