import Courier
import CourierTestServer
import Foundation
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Client certificates from PEM files, and mutual TLS against the in-process server.
@Suite("Client certificates (mutual TLS)")
struct ClientCertificateTests {
    /// A temporary directory with `files` (name → contents); removed by the caller.
    static func directory(with files: [String: String]) throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("courier-mtls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        for (name, contents) in files {
            try Data(contents.utf8).write(to: directory.appendingPathComponent(name))
        }
        return directory
    }

    /// A client certificate issued by `authority` through an intermediate, loaded from PEM files.
    static func clientCertificate(issuedBy authority: IssuedCertificate) throws -> ClientCertificate {
        let intermediate = try CertificateFactory.makeIntermediate(commonName: "Client Intermediate", issuer: authority)
        let client = try CertificateFactory.makeClientCertificate(commonName: "courier-client", issuer: intermediate)
        let directory = try directory(with: [
            "chain.pem": client.pemCertificate + "\n" + intermediate.pemCertificate + "\n",
            "key.pem": client.pemPrivateKey,
        ])
        defer { try? FileManager.default.removeItem(at: directory) }
        return try ClientCertificate(
            certificateChainPEMFile: directory.appendingPathComponent("chain.pem").path,
            privateKeyPEMFile: directory.appendingPathComponent("key.pem").path
        )
    }

    @Test func loadsTheChainAndTheKey() throws {
        let authority = try CertificateFactory.makeRoot(commonName: "Client CA")
        let identity = try Self.clientCertificate(issuedBy: authority)
        #expect(identity.certificateChain.count == 2)
    }

    @Test(arguments: [TestKeyKind.p256, .rsa2048])
    func loadingErrorsAreTyped(key: TestKeyKind) throws {
        let client = try CertificateFactory.makeClientCertificate(commonName: "client", issuer: nil, key: key)
        let stranger = try CertificateFactory.makeClientCertificate(commonName: "stranger", issuer: nil, key: key)
        let directory = try Self.directory(with: [
            "client.pem": client.pemCertificate,
            "key.pem": client.pemPrivateKey,
            "stranger-key.pem": stranger.pemPrivateKey,
            "garbage.pem": "not PEM at all",
        ])
        defer { try? FileManager.default.removeItem(at: directory) }
        func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

        #expect(throws: ClientCertificateError.self) { try ClientCertificate(certificateChainPEMFile: path("missing.pem"), privateKeyPEMFile: path("key.pem")) }
        #expect { try ClientCertificate(certificateChainPEMFile: path("missing.pem"), privateKeyPEMFile: path("key.pem")) } throws: {
            if case .unreadable(let file, _) = $0 as? ClientCertificateError { return file == path("missing.pem") }
            return false
        }
        #expect { try ClientCertificate(certificateChainPEMFile: path("garbage.pem"), privateKeyPEMFile: path("key.pem")) } throws: {
            if case .noCertificate = $0 as? ClientCertificateError { return true }
            return false
        }
        #expect { try ClientCertificate(certificateChainPEMFile: path("client.pem"), privateKeyPEMFile: path("garbage.pem")) } throws: {
            if case .invalidPrivateKey = $0 as? ClientCertificateError { return true }
            return false
        }
        #expect { try ClientCertificate(certificateChainPEMFile: path("client.pem"), privateKeyPEMFile: path("stranger-key.pem")) } throws: {
            $0 as? ClientCertificateError == .keyDoesNotMatchCertificate(certificatePath: path("client.pem"), keyPath: path("stranger-key.pem"))
        }
        #expect(try ClientCertificate(certificateChainPEMFile: path("client.pem"), privateKeyPEMFile: path("key.pem")).certificateChain.count == 1)
    }

    /// A server requiring client certificates from `clientAuthority`, and a transport trusting the server.
    static func mutualTLS(
        http2: Bool,
        clientAuthority: IssuedCertificate,
        identity: ClientCertificate?
    ) async throws -> (TestServer, EngineTransport) {
        var tls = TestServerTLS.generated.requiringClientCertificates(issuedBy: [clientAuthority])
        tls.http2 = http2
        let server = try await TestServer.start(tls: tls)
        let policy = SecurityPolicy.default
        policy.trustedRootCertificates = [try #require(server.certificateAuthorityDER)]
        let transport = EnforcementProbe.transport(policy) { $0.clientCertificate = identity }
        return (server, transport)
    }

    @Test(arguments: [true, false])
    func mutualTLSIsAccepted(http2: Bool) async throws {
        let authority = try CertificateFactory.makeRoot(commonName: "Client CA")
        let (server, transport) = try await Self.mutualTLS(
            http2: http2, clientAuthority: authority, identity: try Self.clientCertificate(issuedBy: authority)
        )
        defer { Task { await EnforcementProbe.stop(transport, server) } }
        EnforcementProbe.expectAccepted(try await EnforcementProbe.get(server, through: transport), http2: http2)
    }

    @Test(arguments: [true, false])
    func mutualTLSIsRefusedWithoutOrWithAForeignCertificate(http2: Bool) async throws {
        let authority = try CertificateFactory.makeRoot(commonName: "Client CA")
        let foreign = try CertificateFactory.makeRoot(commonName: "Foreign CA")
        for identity in [nil, try Self.clientCertificate(issuedBy: foreign)] {
            let (server, transport) = try await Self.mutualTLS(http2: http2, clientAuthority: authority, identity: identity)
            let outcome = try await EnforcementProbe.get(server, through: transport)
            print("Mutual TLS refused (\(identity == nil ? "no certificate" : "foreign certificate"), HTTP/2 offered: \(http2)): \(outcome)")
            let expected: URLError.Code = identity == nil ? .clientCertificateRequired : .clientCertificateRejected
            // The server's TLS alert races with its close: AsyncHTTPClient reports one or the other (over HTTP/2
            // usually the close).
            #expect([expected, .networkConnectionLost].contains(outcome.error?.code), "\(outcome)")
            #expect(outcome.status == nil)
            #expect(server.requestLog.count == 0, "no request may reach the server")
            await EnforcementProbe.stop(transport, server)
        }
    }
}
