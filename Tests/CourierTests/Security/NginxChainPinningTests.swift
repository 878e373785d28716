import Courier
import CourierTestServer
import Foundation
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Pins anywhere in the chain, against nginx presenting leaf → intermediate (its root stays with the client), over
/// HTTP/2: a pin on the leaf, the intermediate or the root, by certificate or by public key, is accepted; an unrelated
/// pin is refused during the handshake, before nginx logs any request.
@Suite("Pins anywhere in nginx's chain", .enabled(NginxServer.skipMessage) { await NginxInterop.isRunning() })
struct NginxChainPinningTests {
    enum Pinned: String, CaseIterable, Sendable {
        case leaf = "server", intermediate, root = "ca"

        /// The PEM file of the certificate (`.pem`) or of its public key (`.pub`) beside nginx's root.
        func file(_ suffix: String) throws -> URL {
            let root = try #require(NginxServer.certificateAuthorityPath)
            return URL(fileURLWithPath: root).deletingLastPathComponent().appendingPathComponent("\(rawValue).\(suffix)")
        }
    }

    @Test(arguments: Pinned.allCases)
    func certificatePinIsAccepted(_ pinned: Pinned) async throws {
        let policy = SecurityPolicy(pinningMode: .certificate, pinnedCertificates: [try Data(contentsOf: pinned.file("pem"))])
        policy.trustedRootCertificates = try NginxServer.certificates(at: NginxServer.certificateAuthorityPath)
        try await expectAccepted(policy)
    }

    @Test(arguments: Pinned.allCases)
    func publicKeyPinIsAccepted(_ pinned: Pinned) async throws {
        let policy = SecurityPolicy(pinningMode: .publicKey, pinnedCertificates: [])
        policy.pinnedPublicKeys = [try Data(contentsOf: pinned.file("pub"))]
        policy.trustedRootCertificates = try NginxServer.certificates(at: NginxServer.certificateAuthorityPath)
        try await expectAccepted(policy)
    }

    /// AFNetworking's usual private-CA set-up: the CA is pinned and invalid certificates are allowed, so the CA need
    /// not be a trusted root; the chain must still lead to it.
    @Test func pinnedRootWithInvalidCertificatesAllowedNeedsNoTrustedRoot() async throws {
        let policy = SecurityPolicy(pinningMode: .certificate, pinnedCertificates: [try Data(contentsOf: Pinned.root.file("pem"))])
        policy.allowInvalidCertificates = true
        try await expectAccepted(policy)
    }

    @Test func pinnedRootThatIsNotTrustedIsRefused() async throws {
        let policy = SecurityPolicy(pinningMode: .certificate, pinnedCertificates: [try Data(contentsOf: Pinned.root.file("pem"))])
        try await expectRefused(policy, reason: "is not trusted by the system or the policy's trusted roots")
    }

    @Test(arguments: [SSLPinningMode.certificate, .publicKey])
    func unrelatedRootPinIsRefusedBeforeAnyRequest(_ mode: SSLPinningMode) async throws {
        let stranger = try CertificateFactory.makeRoot(commonName: "Stranger root CA")
        let policy = SecurityPolicy(pinningMode: mode, pinnedCertificates: [stranger.derBytes])
        policy.trustedRootCertificates = try NginxServer.certificates(at: NginxServer.certificateAuthorityPath).union([stranger.derBytes])
        try await expectRefused(policy, reason: nil)
    }

    @Test func unrelatedLeafPinIsRefusedBeforeAnyRequest() async throws {
        let stranger = try CertificateFactory.makeLeaf(commonName: "stranger", dnsNames: ["localhost"], issuer: nil)
        let policy = SecurityPolicy(pinningMode: .certificate, pinnedCertificates: [stranger.derBytes])
        policy.trustedRootCertificates = try NginxServer.certificates(at: NginxServer.certificateAuthorityPath)
        try await expectRefused(policy, reason: "pinned")
    }

    // MARK: -

    private func expectAccepted(_ policy: SecurityPolicy, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let transport = EnforcementProbe.transport(policy)
        defer { Task { try? await transport.shutdown() } }
        let outcome = await EnforcementProbe.get(try NginxInterop.url("hello.txt"), through: transport)
        #expect(outcome.status == 200, "\(outcome)", sourceLocation: sourceLocation)
        #expect(outcome.httpVersion == "HTTP/2.0", "\(outcome)", sourceLocation: sourceLocation)
    }

    /// The request fails as untrusted, and nginx never logs it: a request made afterwards over a trusting transport
    /// is logged, and nothing with the refused request's probe precedes it.
    private func expectRefused(_ policy: SecurityPolicy, reason: String?, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let refusedProbe = NginxInterop.probe()
        let transport = EnforcementProbe.transport(policy)
        defer { Task { try? await transport.shutdown() } }
        let outcome = await EnforcementProbe.get(try NginxInterop.url("hello.txt", probe: refusedProbe), through: transport)
        #expect(outcome.error?.code == .serverCertificateUntrusted, "\(outcome)", sourceLocation: sourceLocation)
        if let reason {
            #expect(outcome.error?.localizedDescription.contains(reason) == true, "\(outcome)", sourceLocation: sourceLocation)
        }

        let laterProbe = NginxInterop.probe()
        let trusting = try NginxInterop.transport()
        defer { Task { try? await trusting.shutdown() } }
        let later = await EnforcementProbe.get(try NginxInterop.url("hello.txt", probe: laterProbe), through: trusting)
        #expect(later.status == 200, "\(later)", sourceLocation: sourceLocation)
        _ = try await NginxInterop.accessLog(probe: laterProbe, count: 1)
        let log = try String(contentsOfFile: try #require(NginxInterop.accessLogPath), encoding: .utf8)
        #expect(!log.contains(refusedProbe), "nginx logged the refused request", sourceLocation: sourceLocation)
    }
}
