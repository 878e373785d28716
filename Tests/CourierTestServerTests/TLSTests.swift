import AsyncHTTPClient
import CourierTestServer
import Foundation
import NIOCore
import NIOSSL
import Testing
import X509

@Suite struct TLSTests {
    /// A client trusting `authorities` (DER), optionally presenting a client certificate.
    static func client(trusting authorities: [Data], identity: IssuedCertificate? = nil) throws -> HTTPClient {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.trustRoots = .certificates(try authorities.map { try NIOSSLCertificate(bytes: Array($0), format: .der) })
        if let identity {
            tls.certificateChain = [.certificate(try NIOSSLCertificate(bytes: Array(identity.derBytes), format: .der))]
            tls.privateKey = .privateKey(try NIOSSLPrivateKey(bytes: Array(identity.pemPrivateKey.utf8), format: .pem))
        }
        var configuration = HTTPClient.Configuration(tlsConfiguration: tls, redirectConfiguration: .disallow)
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.timeout.connect = .seconds(5)
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    static func get(_ client: HTTPClient, _ url: String) async throws -> (HTTPClientResponse, String) {
        let response = try await client.execute(HTTPClientRequest(url: url), timeout: .seconds(10))
        let body = try await response.body.collect(upTo: 1 << 20)
        return (response, String(buffer: body))
    }

    @Test func generatedCertificateServesHTTP2AndHTTP1() async throws {
        let server = try await TestServer.start(tls: true)
        #expect(server.baseURL.absoluteString == "https://127.0.0.1:\(server.port)")
        let authority = try #require(server.certificateAuthorityDER)
        let leaf = try Certificate(derEncoded: Array(try #require(server.leafCertificateDER)))
        #expect(try Certificate(derEncoded: Array(authority)).subject == leaf.issuer)
        let client = try Self.client(trusting: [authority])
        for host in ["127.0.0.1", "localhost"] {
            let (response, body) = try await Self.get(client, "https://\(host):\(server.port)/get?x=1")
            #expect(response.status == .ok)
            #expect(response.version == .http2)
            #expect(body.contains("\"url\" : \"https://\(host):\(server.port)/get?x=1\""))
            #expect(body.contains("\"Host\" : \"\(host):\(server.port)\""))
        }
        // Request bodies and streaming endpoints work over HTTP/2 as well.
        var upload = HTTPClientRequest(url: "https://127.0.0.1:\(server.port)/anything")
        upload.method = .PUT
        let payload = Data((0..<500_000).map { UInt8(truncatingIfNeeded: $0 &* 3) })
        upload.body = .bytes(payload)
        let echoed = try await client.execute(upload, timeout: .seconds(10))
        #expect(echoed.version == .http2)
        let echoedBody = String(buffer: try await echoed.body.collect(upTo: 4 << 20))
        #expect(echoedBody.contains(#""body_sha256" : "\#(sha256Hex(payload))""#))
        #expect(echoedBody.contains(#""method" : "PUT""#))
        let bytes = try await client.execute(HTTPClientRequest(url: "https://127.0.0.1:\(server.port)/bytes/300000?seed=3"), timeout: .seconds(10))
        #expect(Data(try await bytes.body.collect(upTo: 1 << 20).readableBytesView) == TestPayload.bytes(count: 300_000, seed: 3))
        #expect(server.requestLog.count == 4)
        try await client.shutdown()
        try await server.shutdown()
    }

    @Test func http1OnlyWhenHTTP2IsOff() async throws {
        let server = try await TestServer.start(tls: TestServerTLS(http2: false))
        let client = try Self.client(trusting: [try #require(server.certificateAuthorityDER)])
        let (response, _) = try await Self.get(client, server.baseURL.absoluteString + "/get")
        #expect(response.version == .http1_1)
        try await client.shutdown()
        try await server.shutdown()
    }

    @Test func untrustedServerIsRejectedBeforeAnyRequest() async throws {
        let server = try await TestServer.start(tls: true)
        let otherAuthority = try CertificateFactory.makeRoot(commonName: "Someone Else")
        let client = try Self.client(trusting: [otherAuthority.derBytes])
        await #expect(throws: (any Error).self) {
            _ = try await Self.get(client, server.baseURL.absoluteString + "/get")
        }
        #expect(server.requestLog.count == 0)
        try await client.shutdown()
        try await server.shutdown()
    }

    @Test func customChainsExpiredWrongHostAndIntermediate() async throws {
        let root = try CertificateFactory.makeRoot(commonName: "Custom Root")
        let client = try Self.client(trusting: [root.derBytes])

        let expired = try CertificateFactory.makeLeaf(
            commonName: "localhost", dnsNames: ["localhost"], ipAddresses: ["127.0.0.1"], issuer: root,
            notBefore: Date(timeIntervalSinceNow: -7200), notAfter: Date(timeIntervalSinceNow: -3600))
        let expiredServer = try await TestServer.start(tls: .custom(chain: [expired]))
        #expect(expiredServer.certificateAuthorityDER == nil)
        #expect(expiredServer.leafCertificateDER == expired.derBytes)
        await #expect(throws: (any Error).self) { _ = try await Self.get(client, expiredServer.baseURL.absoluteString + "/get") }
        #expect(expiredServer.requestLog.count == 0)
        try await expiredServer.shutdown()

        let wrongHost = try CertificateFactory.makeLeaf(commonName: "example.com", dnsNames: ["example.com"], issuer: root)
        let wrongHostServer = try await TestServer.start(tls: .custom(chain: [wrongHost]))
        await #expect(throws: (any Error).self) { _ = try await Self.get(client, wrongHostServer.baseURL.absoluteString + "/get") }
        #expect(wrongHostServer.requestLog.count == 0)
        try await wrongHostServer.shutdown()

        let intermediate = try CertificateFactory.makeIntermediate(commonName: "Custom Intermediate", issuer: root)
        let leaf = try CertificateFactory.makeLeaf(
            commonName: "localhost", dnsNames: ["localhost"], ipAddresses: ["127.0.0.1"], issuer: intermediate, key: .rsa2048)
        let chainServer = try await TestServer.start(tls: .custom(chain: [leaf, intermediate]))
        let (response, _) = try await Self.get(client, chainServer.baseURL.absoluteString + "/get")
        #expect(response.status == .ok)
        #expect(chainServer.requestLog.count == 1)
        try await chainServer.shutdown()
        try await client.shutdown()
    }

    @Test func mutualTLSRequiresAClientCertificateFromTheGivenCA() async throws {
        let clientAuthority = try CertificateFactory.makeRoot(commonName: "Client CA")
        let server = try await TestServer.start(tls: TestServerTLS.generated.requiringClientCertificates(issuedBy: [clientAuthority]))
        let serverAuthority = try #require(server.certificateAuthorityDER)

        let anonymous = try Self.client(trusting: [serverAuthority])
        await #expect(throws: (any Error).self) { _ = try await Self.get(anonymous, server.baseURL.absoluteString + "/get") }
        try await anonymous.shutdown()

        let stranger = try CertificateFactory.makeClientCertificate(commonName: "stranger", issuer: nil)
        let strangerClient = try Self.client(trusting: [serverAuthority], identity: stranger)
        await #expect(throws: (any Error).self) { _ = try await Self.get(strangerClient, server.baseURL.absoluteString + "/get") }
        try await strangerClient.shutdown()
        #expect(server.requestLog.count == 0)

        let member = try CertificateFactory.makeClientCertificate(commonName: "member", issuer: clientAuthority)
        let memberClient = try Self.client(trusting: [serverAuthority], identity: member)
        let (response, _) = try await Self.get(memberClient, server.baseURL.absoluteString + "/get")
        #expect(response.status == .ok)
        #expect(server.requestLog.count == 1)
        try await memberClient.shutdown()
        try await server.shutdown()
    }

    @Test func emptyCustomChainThrows() {
        #expect(throws: TestServerError.self) { try TestServerTLS.custom(chain: []) }
    }
}
