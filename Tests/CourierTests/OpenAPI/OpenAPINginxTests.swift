import Courier
import CourierOpenAPI
import CourierTestServer
import Crypto
import Foundation
import HTTPTypes
import OpenAPIRuntime
import Synchronization
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `CourierTransport.send` against nginx over TLS (leaf → intermediate, the root kept by the client): the session's
/// security policy decides every call, pins included, a large file streams down intact, and an unread body dropped
/// cancels its request.
@Suite("OpenAPI transport against nginx (TLS)", .enabled(NginxServer.skipMessage) { await NginxInterop.isRunning() })
struct OpenAPINginxTests {
    let base: URL

    init() throws {
        base = try #require(NginxServer.url)
    }

    /// A session enforcing `policy`.
    private func session(_ policy: SecurityPolicy) -> URLSessionManager {
        OpenAPIFixtures.session { $0.securityPolicy = policy }
    }

    @Test func aPinOnNginxsLeafCertificateIsAccepted() async throws {
        let policy = SecurityPolicy(pinningMode: .certificate, pinnedCertificates: try NginxServer.certificates(at: NginxServer.leafPath))
        policy.trustedRootCertificates = try NginxServer.certificates(at: NginxServer.certificateAuthorityPath)
        let session = session(policy)
        defer { session.invalidateSessionCancelingTasks(true) }
        // The session's challenge block sees the connection's certificates too.
        let challenges = Atomic<Int>(0)
        session.setSessionDidReceiveAuthenticationChallengeBlock { _, challenge in
            if challenge.serverTrust != nil { challenges.add(1, ordering: .relaxed) }
            return .performDefaultHandling
        }
        let probe = NginxInterop.probe()
        let (response, body) = try await CourierTransport(session: session)
            .send(OpenAPIFixtures.request(.get, "/hello.txt?probe=\(probe)"), body: nil, baseURL: base, operationID: "hello")
        #expect(response.status == .ok)
        #expect(body?.length == .known(17))
        #expect(try await OpenAPIFixtures.collect(body).data == Data(contentsOf: NginxInterop.servedFile("hello.txt")))
        #expect(challenges.load(ordering: .relaxed) == 1)
        let line = try #require(try await NginxInterop.accessLog(probe: probe, count: 1).first)
        #expect(line.protocolVersion == "HTTP/2.0")
    }

    @Test func anUnrelatedPinIsRefusedBeforeAnyRequest() async throws {
        let stranger = try CertificateFactory.makeLeaf(commonName: "stranger", dnsNames: ["localhost"], issuer: nil)
        let policy = SecurityPolicy(pinningMode: .certificate, pinnedCertificates: [stranger.derBytes])
        policy.trustedRootCertificates = try NginxServer.certificates(at: NginxServer.certificateAuthorityPath)
        let refusing = session(policy)
        defer { refusing.invalidateSessionCancelingTasks(true) }
        let refusedProbe = NginxInterop.probe()
        await #expect {
            _ = try await CourierTransport(session: refusing)
                .send(OpenAPIFixtures.request(.get, "/hello.txt?probe=\(refusedProbe)"), body: nil, baseURL: base, operationID: "hello")
        } throws: { error in
            (error as? URLError)?.code == .serverCertificateUntrusted
        }

        // nginx logs a later request made through a trusting session, and nothing of the refused one.
        let trusting = session(try NginxInterop.policy())
        defer { trusting.invalidateSessionCancelingTasks(true) }
        let laterProbe = NginxInterop.probe()
        let (later, laterBody) = try await CourierTransport(session: trusting)
            .send(OpenAPIFixtures.request(.get, "/hello.txt?probe=\(laterProbe)"), body: nil, baseURL: base, operationID: "hello")
        #expect(later.status == .ok)
        _ = try await OpenAPIFixtures.collect(laterBody)
        _ = try await NginxInterop.accessLog(probe: laterProbe, count: 1)
        let log = try String(contentsOfFile: try #require(NginxInterop.accessLogPath), encoding: .utf8)
        #expect(!log.contains(refusedProbe), "nginx logged the refused request")
    }

    @Test func aLargeFileStreamsDownIntact() async throws {
        let file = "bytes-32m.bin"
        let session = session(try NginxInterop.policy())
        defer { session.invalidateSessionCancelingTasks(true) }
        let (response, body) = try await CourierTransport(session: session)
            .send(OpenAPIFixtures.request(.get, "/\(file)"), body: nil, baseURL: base, operationID: "download")
        #expect(response.status == .ok)
        let size = try NginxInterop.size(of: try NginxInterop.servedFile(file))
        #expect(body?.length == .known(size))
        var hash = SHA256()
        var received = 0
        var chunks = 0
        for try await chunk in try #require(body) {
            chunk.withUnsafeBytes { hash.update(bufferPointer: $0) }
            received += chunk.count
            chunks += 1
        }
        #expect(Int64(received) == size)
        #expect(chunks > 1)
        let digest = hash.finalize().map { String(format: "%02x", $0) }.joined()
        #expect(digest == (try sha256Hex(ofFile: try NginxInterop.servedFile(file))))
    }

    @Test func droppingTheBodyUnreadCancelsTheDownload() async throws {
        let session = session(try NginxInterop.policy())
        defer { session.invalidateSessionCancelingTasks(true) }
        let probe = NginxInterop.probe()
        do {
            let (response, body) = try await CourierTransport(session: session)
                .send(OpenAPIFixtures.request(.get, "/bytes-32m.bin?probe=\(probe)"), body: nil, baseURL: base, operationID: "download")
            #expect(response.status == .ok)
            #expect(body != nil)
        }
        // nginx logs the request when its stream is reset, long before the idle timeout would end it, having sent
        // only what the flow-control windows allowed.
        let line = try #require(try await NginxInterop.accessLog(probe: probe, count: 1).first)
        #expect(line.bytesSent < 32 * 1024 * 1024, "\(line)")
    }
}
