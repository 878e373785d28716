import Foundation
import NIOSSL
import Testing
@testable import Courier
import CourierTestServer
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Transport over TLS, HTTP/1.1 and HTTP/2")
struct TLSTransportTests {
    static func transport(trusting server: TestServer, http1Only: Bool = false) throws -> EngineTransport {
        let ca = try #require(server.certificateAuthorityDER)
        var configuration = EngineTransport.Configuration()
        configuration.securityPolicy.trustedRootCertificates = [ca]
        configuration.httpVersion = http1Only ? .http1Only : .automatic
        return EngineTransport(configuration: configuration)
    }

    @Test(arguments: [false, true])
    func getAndPostOverTLS(http1Only: Bool) async throws {
        let server = try await TestServer.start(tls: true)
        let transport = try Self.transport(trusting: server, http1Only: http1Only)
        defer { Task { try? await transport.shutdown(); try? await server.shutdown() } }

        let payload = Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0) })
        var request = URLRequest(url: server.baseURL.appendingPathComponent("post"))
        request.httpMethod = "POST"
        request.httpBody = payload
        let result = try await Exchange(request: request, configuration: .init(transport: transport)).result()
        #expect(result.response.statusCode == 200)
        #expect(try Fixtures.json(result)["body_sha256"] as? String == payload.sha256Hex)

        let redirected = try await Exchange(
            request: URLRequest(url: server.baseURL.appendingPathComponent("redirect/2")),
            configuration: .init(transport: transport)
        ).result()
        #expect(redirected.redirectCount == 2)
        let version = try await Self.negotiatedVersion(server: server, transport: transport)
        #expect(version == (http1Only ? "HTTP/1.1" : "HTTP/2.0"))
    }

    @Test func untrustedServerIsRejected() async throws {
        let server = try await TestServer.start(tls: true)
        let transport = EngineTransport()
        defer { Task { try? await transport.shutdown(); try? await server.shutdown() } }
        await #expect {
            _ = try await Exchange(request: URLRequest(url: server.baseURL.appendingPathComponent("get")),
                                   configuration: .init(transport: transport)).result()
        } throws: { error in
            let code = (error as? URLError)?.code
            return code == .serverCertificateUntrusted || code == .secureConnectionFailed
        }
        #expect(server.requestLog.count == 0, "no request reached the server")
    }

    static func negotiatedVersion(server: TestServer, transport: EngineTransport) async throws -> String {
        let response = try await transport.send(TransportRequest(url: server.baseURL.appendingPathComponent("get")))
        _ = try await response.body.collect()
        return response.httpVersion
    }
}
