import Courier
import CourierTestServer
import Foundation
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What one GET through a policy-enforcing transport gave: the status and HTTP version, or the `URLError`.
struct EnforcementOutcome: CustomStringConvertible {
    var status: Int?
    var httpVersion: String?
    var error: URLError?
    var elapsed: Duration

    var description: String {
        if let error { return "\(error.code.rawValue) \(error.localizedDescription) after \(elapsed)" }
        return "\(status ?? 0) over \(httpVersion ?? "?") after \(elapsed)"
    }
}

/// Helpers for end-to-end policy tests against the in-process TLS server.
enum EnforcementProbe {
    /// Starts a TLS test server presenting `chain` (leaf first), HTTP/2 and HTTP/1.1 or HTTP/1.1 only.
    static func server(chain: [IssuedCertificate], http2: Bool) async throws -> TestServer {
        var tls = try TestServerTLS.custom(chain: chain)
        tls.http2 = http2
        return try await TestServer.start(tls: tls)
    }

    /// A transport enforcing `policy`; `configure` adjusts the rest of its configuration.
    static func transport(
        _ policy: SecurityPolicy,
        configure: (inout EngineTransport.Configuration) -> Void = { _ in }
    ) -> EngineTransport {
        var configuration = EngineTransport.Configuration()
        configuration.securityPolicy = policy
        configure(&configuration)
        return EngineTransport(configuration: configuration)
    }

    /// GET `path` on `host` at the server's port through `transport`, reading the whole body.
    static func get(
        _ server: TestServer,
        host: String = "127.0.0.1",
        path: String = "get",
        through transport: EngineTransport
    ) async throws -> EnforcementOutcome {
        let url = try #require(URL(string: "https://\(host):\(server.port)/\(path)"))
        return await get(url, through: transport)
    }

    /// GET `url` through `transport`, reading the whole body.
    static func get(_ url: URL, through transport: EngineTransport) async -> EnforcementOutcome {
        let clock = ContinuousClock()
        let start = clock.now
        do {
            let response = try await transport.send(TransportRequest(url: url, timeoutInterval: 10))
            _ = try await response.body.collect()
            return EnforcementOutcome(
                status: response.head.statusCode, httpVersion: response.httpVersion, elapsed: clock.now - start
            )
        } catch let error as URLError {
            return EnforcementOutcome(error: error, elapsed: clock.now - start)
        } catch {
            return EnforcementOutcome(error: URLError(.unknown, userInfo: [NSLocalizedDescriptionKey: "\(error)"]), elapsed: clock.now - start)
        }
    }

    /// The HTTP version a server started with `http2` must be reached over.
    static func expectedVersion(http2: Bool) -> String {
        http2 ? "HTTP/2.0" : "HTTP/1.1"
    }

    /// Records an issue unless `outcome` is a 200 over the expected HTTP version.
    static func expectAccepted(
        _ outcome: EnforcementOutcome,
        http2: Bool,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(outcome.status == 200, "\(outcome)", sourceLocation: sourceLocation)
        #expect(outcome.httpVersion == expectedVersion(http2: http2), "\(outcome)", sourceLocation: sourceLocation)
    }

    /// Records an issue unless `outcome` failed with `code`, a message containing `reason`, within one second, and
    /// the server saw no request.
    static func expectRejected(
        _ outcome: EnforcementOutcome,
        server: TestServer,
        code: URLError.Code = .serverCertificateUntrusted,
        reason: String? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(outcome.error?.code == code, "\(outcome)", sourceLocation: sourceLocation)
        if let reason {
            #expect(outcome.error?.localizedDescription.contains(reason) == true, "\(outcome)", sourceLocation: sourceLocation)
        }
        #expect(outcome.elapsed < .seconds(1), "\(outcome)", sourceLocation: sourceLocation)
        #expect(server.requestLog.count == 0, "no request may reach the server", sourceLocation: sourceLocation)
    }

    /// Shuts `transport` and `server` down, ignoring errors (for `defer`).
    static func stop(_ transport: EngineTransport, _ server: TestServer) async {
        try? await transport.shutdown()
        try? await server.shutdown()
    }
}
