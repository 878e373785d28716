import CourierTestServer
import Foundation
import Testing
import X509

/// The `courier` TLS options against HTTPS test servers whose certificates no system trusts: `--insecure`,
/// `--cacert`, `--pin-cert`, `--pin-key`, and `--cert`/`--key` for a server that requires a client certificate.
@Suite("courier TLS options", .timeLimit(.minutes(3)))
struct CLISecurityOptionTests {
    /// An HTTPS test server with a generated CA, and its certificates written to files.
    struct Setup: Sendable {
        let server: TestServer
        let directory: URL
        var authorityFile: String { directory.appendingPathComponent("ca.der").path }
        var leafFile: String { directory.appendingPathComponent("leaf.cer").path }
        var leafPEMFile: String { directory.appendingPathComponent("leaf.pem").path }
        var strangerFile: String { directory.appendingPathComponent("stranger.cer").path }
        var leafKeyFile: String { directory.appendingPathComponent("leaf-key.pem").path }
        var strangerKeyFile: String { directory.appendingPathComponent("stranger-key.pem").path }
        var garbageFile: String { directory.appendingPathComponent("garbage.pem").path }
        var url: String { server.baseURL.appendingPathComponent("get").absoluteString }

        static func make(tls: TestServerTLS = .generated) async throws -> Setup {
            let server = try await TestServer.start(tls: tls)
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("courier-cli-tls-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let leaf = try #require(server.leafCertificateDER)
            try #require(server.certificateAuthorityDER).write(to: directory.appendingPathComponent("ca.der"))
            try leaf.write(to: directory.appendingPathComponent("leaf.cer"))
            try Data(pem(leaf).utf8).write(to: directory.appendingPathComponent("leaf.pem"))
            let stranger = try CertificateFactory.makeRoot(commonName: "Stranger")
            try stranger.derBytes.write(to: directory.appendingPathComponent("stranger.cer"))
            try Data(try Certificate(derEncoded: Array(leaf)).publicKey.serializeAsPEM().pemString.utf8)
                .write(to: directory.appendingPathComponent("leaf-key.pem"))
            try Data(try stranger.certificate.publicKey.serializeAsPEM().pemString.utf8)
                .write(to: directory.appendingPathComponent("stranger-key.pem"))
            try Data("-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydGlmaWNhdGU=\n-----END CERTIFICATE-----\n".utf8)
                .write(to: directory.appendingPathComponent("garbage.pem"))
            return Setup(server: server, directory: directory)
        }

        static func pem(_ der: Data) -> String {
            "-----BEGIN CERTIFICATE-----\n" + der.base64EncodedString(options: .lineLength64Characters) + "\n-----END CERTIFICATE-----\n"
        }

        func tearDown() async throws {
            try? FileManager.default.removeItem(at: directory)
            try await server.shutdown()
        }
    }

    static let shared = Task { try await Setup.make() }

    static func courier(_ arguments: [String]) async throws -> ChildProcess.Outcome {
        try await CLIRequestTests.courier(arguments)
    }

    @Test func anUntrustedServerFailsUnlessInsecure() async throws {
        let setup = try await Self.shared.value
        let refused = try await Self.courier(["get", setup.url])
        #expect(refused.status == 4)
        #expect(refused.standardError.hasPrefix("courier: "))
        #expect(refused.standardError.lowercased().contains("certificate"), "\(refused.standardError)")

        let insecure = try await Self.courier(["get", "-p", "hb", "--insecure", setup.url])
        #expect(insecure.status == 0, "\(insecure.standardError)")
        #expect(insecure.standardOutput.hasPrefix("HTTP/2 200 OK"), "\(insecure.standardOutput.prefix(40))")
        let verbose = try await Self.courier(["get", "-v", "-k", setup.url])
        #expect(verbose.status == 0)
        #expect(verbose.standardError.contains(" HTTP/2\n> Host: "), "-v names the protocol the request went over, as the wire writes it: \(verbose.standardError)")
    }

    @Test func cacertTrustsThePrivateAuthority() async throws {
        let setup = try await Self.shared.value
        let trusted = try await Self.courier(["get", "--cacert", setup.authorityFile, setup.url])
        #expect(trusted.status == 0, "\(trusted.standardError)")
        #expect(try CLIRequestTests.json(trusted)["url"] as? String == setup.url)

        let wrongAuthority = try await Self.courier(["get", "--cacert", setup.strangerFile, setup.url])
        #expect(wrongAuthority.status == 4)

        let garbage = try await Self.courier(["get", "--cacert", setup.garbageFile, setup.url])
        #expect(garbage.status == 2)
        #expect(garbage.standardError == "courier: bad --cacert file: \(setup.garbageFile) holds no DER or PEM X.509 certificate\n")
    }

    /// `--resolve` changes where the connection goes, not the name TLS checks: the certificate (for localhost and
    /// 127.0.0.1) is accepted for localhost and refused for another name sent to the same address.
    @Test func resolveKeepsTheNameTLSChecks() async throws {
        let setup = try await Self.shared.value
        let port = try #require(setup.server.baseURL.port)
        let localhost = try await Self.courier([
            "get", "--cacert", setup.authorityFile, "--resolve", "localhost:\(port):127.0.0.1", "https://localhost:\(port)/get",
        ])
        #expect(localhost.status == 0, "\(localhost.standardError)")
        let other = try await Self.courier([
            "get", "--cacert", setup.authorityFile, "--resolve", "courier-resolve.test:\(port):127.0.0.1",
            "https://courier-resolve.test:\(port)/get",
        ])
        #expect(other.status == 4)
        #expect(other.standardError.contains("courier-resolve.test"), "\(other.standardError)")
    }

    /// `--connect-to` with another port (#36, item 8): the connection goes to the server's port, while TLS and the
    /// request keep the URL's name and port (HTTP/2's `:authority` says `localhost:1`); a name the certificate does
    /// not hold is refused on the same connection target, so the certificate was checked against HOST1.
    @Test func connectToAnotherPortKeepsTheURLsNameAndPort() async throws {
        let setup = try await Self.shared.value
        let port = try #require(setup.server.baseURL.port)
        for mapping in ["localhost:1:127.0.0.1:\(port)", "localhost:::\(port)"] {
            let moved = try await Self.courier([
                "get", "--cacert", setup.authorityFile, "--connect-to", mapping, "https://localhost:1/get",
            ])
            #expect(moved.status == 0, "\(mapping): \(moved.standardError)")
            let echoed = try CLIRequestTests.json(moved)
            #expect(echoed["url"] as? String == "https://localhost:1/get", "\(mapping): \(echoed)")
        }
        let other = try await Self.courier([
            "get", "--cacert", setup.authorityFile, "--connect-to", "courier-connect.test:1:127.0.0.1:\(port)",
            "https://courier-connect.test:1/get",
        ])
        #expect(other.status == 4)
        #expect(other.standardError.contains("courier-connect.test"), "\(other.standardError)")
    }

    @Test func certificatePinning() async throws {
        let setup = try await Self.shared.value
        for pin in [setup.leafFile, setup.leafPEMFile, setup.authorityFile] {
            let pinned = try await Self.courier(["get", "--cacert", setup.authorityFile, "--pin-cert", pin, setup.url])
            #expect(pinned.status == 0, "\(pin): \(pinned.standardError)")
        }
        let wrong = try await Self.courier(["get", "--cacert", setup.authorityFile, "--pin-cert", setup.strangerFile, setup.url])
        #expect(wrong.status == 4)
        #expect(wrong.standardError.contains("pinned"), "\(wrong.standardError)")

        let pinnedInsecure = try await Self.courier(["get", "--insecure", "--pin-cert", setup.leafFile, setup.url])
        #expect(pinnedInsecure.status == 0, "a pinned certificate with invalid certificates allowed: \(pinnedInsecure.standardError)")
        let wrongInsecure = try await Self.courier(["get", "--insecure", "--pin-cert", setup.strangerFile, setup.url])
        #expect(wrongInsecure.status == 4, "--insecure does not bypass a pin")
    }

    @Test func publicKeyPinning() async throws {
        let setup = try await Self.shared.value
        for pin in [setup.leafFile, setup.authorityFile, setup.leafKeyFile] {
            let pinned = try await Self.courier(["get", "--cacert", setup.authorityFile, "--pin-key", pin, setup.url])
            #expect(pinned.status == 0, "\(pin): \(pinned.standardError)")
        }
        let wrong = try await Self.courier(["get", "--cacert", setup.authorityFile, "--pin-key", setup.strangerFile, setup.url])
        #expect(wrong.status == 4)
        #expect(wrong.standardError.contains("public key"), "\(wrong.standardError)")
        let wrongInsecure = try await Self.courier(["get", "--insecure", "--pin-key", setup.strangerFile, setup.url])
        #expect(wrongInsecure.status == 4)

        let both = try await Self.courier(["get", "--pin-key", setup.leafFile, "--pin-cert", setup.leafFile, setup.url])
        #expect(both.status == 2)
        let wrongKey = try await Self.courier(["get", "--cacert", setup.authorityFile, "--pin-key", setup.strangerKeyFile, setup.url])
        #expect(wrongKey.status == 4)
        let keyInsecure = try await Self.courier(["get", "--insecure", "--pin-key", setup.leafKeyFile, setup.url])
        #expect(keyInsecure.status == 0, "a pinned public key with invalid certificates allowed: \(keyInsecure.standardError)")
        let garbage = try await Self.courier(["get", "--pin-key", setup.garbageFile, setup.url])
        #expect(garbage.status == 2)
        #expect(garbage.standardError == "courier: bad --pin-key file: \(setup.garbageFile) holds no certificate or public key (DER or PEM)\n")
    }

    @Test func clientCertificatesForMutualTLS() async throws {
        let clientAuthority = try CertificateFactory.makeRoot(commonName: "CLI Client CA")
        let client = try CertificateFactory.makeClientCertificate(commonName: "courier-cli", issuer: clientAuthority)
        let stranger = try CertificateFactory.makeClientCertificate(commonName: "stranger", issuer: nil)
        for http2 in [true, false] {
            let setup = try await Setup.make(tls: TestServerTLS(http2: http2).requiringClientCertificates(issuedBy: [clientAuthority]))
            let chain = setup.directory.appendingPathComponent("client.pem").path
            let key = setup.directory.appendingPathComponent("client-key.pem").path
            let combined = setup.directory.appendingPathComponent("combined.pem").path
            let strangerKey = setup.directory.appendingPathComponent("stranger-key.pem").path
            try Data(client.pemCertificate.utf8).write(to: URL(fileURLWithPath: chain))
            try Data(client.pemPrivateKey.utf8).write(to: URL(fileURLWithPath: key))
            try Data((client.pemCertificate + "\n" + client.pemPrivateKey).utf8).write(to: URL(fileURLWithPath: combined))
            try Data(stranger.pemPrivateKey.utf8).write(to: URL(fileURLWithPath: strangerKey))

            let accepted = try await Self.courier(["get", "--cacert", setup.authorityFile, "--cert", chain, "--key", key, setup.url])
            #expect(accepted.status == 0, "HTTP/2 \(http2): \(accepted.standardError)")
            let oneFile = try await Self.courier(["get", "--cacert", setup.authorityFile, "--cert", combined, setup.url])
            #expect(oneFile.status == 0, "HTTP/2 \(http2): \(oneFile.standardError)")

            let refused = try await Self.courier(["get", "--cacert", setup.authorityFile, setup.url])
            #expect(refused.status == 4, "HTTP/2 \(http2): no client certificate")
            #expect(refused.standardError.hasPrefix("courier: "))

            let mismatched = try await Self.courier(["get", "--cacert", setup.authorityFile, "--cert", chain, "--key", strangerKey, setup.url])
            #expect(mismatched.status == 2)
            #expect(mismatched.standardError == "courier: bad client certificate: the private key in \(strangerKey) does not match the certificate in \(chain)\n")
            let keyAlone = try await Self.courier(["get", "--key", key, setup.url])
            #expect(keyAlone.status == 2)
            try await setup.tearDown()
        }
    }
}
