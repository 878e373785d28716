@testable import Courier
import CourierTestServer
import Foundation
import NIOCore
import NIOPosix
import NIOSSL
import Testing

/// The handshake glue against a real TLS server on the loopback interface.
@Suite("TLSHandshakeEvaluation over loopback")
struct TLSHandshakeEvaluationTests {
    /// Runs a handshake against a server presenting `chain`, then `evaluation.verify`; returns the error, if any,
    /// whether the channel is still open afterwards, and the time from connecting to the verdict.
    private func handshake(
        serving chain: [IssuedCertificate],
        evaluation: TLSHandshakeEvaluation,
        serverHostname: String? = TestPKI.host
    ) async throws -> (error: (any Error)?, channelOpen: Bool, elapsed: Duration) {
        let server = try await LoopbackTLS.start(chain: chain, key: chain[0])
        defer { Task { try? await server.stop() } }
        let context = try NIOSSLContext(configuration: try evaluation.makeTLSConfiguration())
        let clock = ContinuousClock()
        let start = clock.now
        let channel = try await server.connect(context: context, serverHostname: serverHostname)
        do {
            try await evaluation.verify(channel).get()
        } catch {
            let elapsed = clock.now - start
            // Give the close a second to land, without hanging if it never does.
            _ = await eventually(timeout: .seconds(1)) { !channel.isActive }
            let open = channel.isActive
            try? await channel.close()
            return (error, open, elapsed)
        }
        let elapsed = clock.now - start
        let open = channel.isActive
        try? await channel.close()
        return (nil, open, elapsed)
    }

    @Test func trustedChainPassesAndKeepsTheConnection() async throws {
        let pki = try TestPKI()
        let evaluation = TLSHandshakeEvaluation(policy: TestPKI.policy(.none, trustedRoots: [pki.root]), domain: TestPKI.host)
        let outcome = try await handshake(serving: [pki.leaf, pki.intermediate], evaluation: evaluation)
        #expect(outcome.error == nil)
        #expect(outcome.channelOpen)
    }

    @Test func wrongHostFailsWithTheReasonAndClosesTheConnection() async throws {
        let pki = try TestPKI(dnsNames: ["other.test"])
        let evaluation = TLSHandshakeEvaluation(policy: TestPKI.policy(.none, trustedRoots: [pki.root]), domain: TestPKI.host)
        let outcome = try await handshake(serving: [pki.leaf, pki.intermediate], evaluation: evaluation)
        let error = try #require(outcome.error as? ServerTrustError)
        #expect(error.domain == TestPKI.host)
        #expect(error.urlError.code == .serverCertificateUntrusted)
        #expect(error.description.contains(TestPKI.host))
        #expect(!outcome.channelOpen)
    }

    @Test func untrustedChainIsRejectedByTheTLSStack() async throws {
        let pki = try TestPKI()
        let evaluation = TLSHandshakeEvaluation(policy: SecurityPolicy.default, domain: TestPKI.host)
        let server = try await LoopbackTLS.start(chain: [pki.leaf, pki.intermediate], key: pki.leaf)
        defer { Task { try? await server.stop() } }
        await #expect(throws: LoopbackTLS.HandshakeFailed.self) {
            _ = try await server.connect(configuration: try evaluation.makeTLSConfiguration(), serverHostname: TestPKI.host)
        }
    }

    @Test func wrongCertificatePinIsRejectedInUnderASecond() async throws {
        let pki = try TestPKI()
        let other = try TestPKI()
        let policy = TestPKI.policy(.certificate, pins: [other.leaf], trustedRoots: [pki.root])
        let outcome = try await handshake(serving: [pki.leaf, pki.intermediate], evaluation: TLSHandshakeEvaluation(policy: policy, domain: TestPKI.host))
        #expect(outcome.error is ServerTrustError)
        #expect(!outcome.channelOpen)
        #expect(outcome.elapsed < .seconds(1), "took \(outcome.elapsed)")
    }

    @Test func pinsOnTheLeafAndItsIssuerPass() async throws {
        let pki = try TestPKI()
        for policy in [
            TestPKI.policy(.certificate, pins: [pki.leaf], trustedRoots: [pki.root]),
            TestPKI.policy(.certificate, pins: [pki.intermediate], trustedRoots: [pki.root]),
            TestPKI.policy(.publicKey, pins: [pki.leaf], trustedRoots: [pki.root]),
            TestPKI.policy(.publicKey, pins: [pki.intermediate], trustedRoots: [pki.root]),
        ] {
            let outcome = try await handshake(serving: [pki.leaf, pki.intermediate], evaluation: TLSHandshakeEvaluation(policy: policy, domain: TestPKI.host))
            #expect(outcome.error == nil, "\(policy.pinningMode): \(String(describing: outcome.error))")
        }
    }

    /// The pinned root is the TLS stack's only anchor, so the handshake proves the chain reaches it.
    @Test func pinOnTheRootAboveTheIntermediatePasses() async throws {
        let pki = try TestPKI()
        for mode in [SSLPinningMode.certificate, .publicKey] {
            let policy = TestPKI.policy(mode, pins: [pki.root], trustedRoots: [pki.root])
            let outcome = try await handshake(serving: [pki.leaf, pki.intermediate], evaluation: TLSHandshakeEvaluation(policy: policy, domain: TestPKI.host))
            #expect(outcome.error == nil, "\(mode): \(String(describing: outcome.error))")
            #expect(outcome.channelOpen)
        }
    }

    @Test func selfSignedServerWithAllowInvalidAndACertificatePin() async throws {
        let selfSigned = try CertificateFactory.makeLeaf(commonName: "self", dnsNames: [TestPKI.host], issuer: nil, key: .rsa2048)
        let pinned = TestPKI.policy(.certificate, pins: [selfSigned], allowInvalidCertificates: true)
        #expect(try await handshake(serving: [selfSigned], evaluation: TLSHandshakeEvaluation(policy: pinned, domain: TestPKI.host)).error == nil)
        let otherPin = TestPKI.policy(.certificate, pins: [try CertificateFactory.makeLeaf(commonName: "x", dnsNames: [TestPKI.host], issuer: nil)], allowInvalidCertificates: true)
        #expect(try await handshake(serving: [selfSigned], evaluation: TLSHandshakeEvaluation(policy: otherPin, domain: TestPKI.host)).error is ServerTrustError)
    }

    @Test func publicKeyPinSurvivesAReissuedServerCertificate() async throws {
        let pki = try TestPKI()
        let reissued = try CertificateFactory.makeLeaf(commonName: "again", dnsNames: [TestPKI.host], issuer: pki.intermediate, reuseKey: pki.leaf.privateKey)
        let policy = TestPKI.policy(.publicKey, pins: [pki.leaf], trustedRoots: [pki.root])
        let outcome = try await handshake(serving: [reissued, pki.intermediate], evaluation: TLSHandshakeEvaluation(policy: policy, domain: TestPKI.host))
        #expect(outcome.error == nil)
    }

    @Test func ipAddressHost() async throws {
        let pki = try TestPKI(dnsNames: ["localhost"], ipAddresses: ["127.0.0.1"])
        let policy = TestPKI.policy(.none, trustedRoots: [pki.root])
        let outcome = try await handshake(
            serving: [pki.leaf, pki.intermediate],
            evaluation: TLSHandshakeEvaluation(policy: policy, domain: "127.0.0.1"),
            serverHostname: nil
        )
        #expect(outcome.error == nil)
    }

    @Test func channelWithoutTLSIsLeftAlone() async throws {
        let pki = try TestPKI()
        let server = try await LoopbackTLS.start(chain: [pki.leaf, pki.intermediate], key: pki.leaf)
        defer { Task { try? await server.stop() } }
        let plain = try await ClientBootstrap(group: server.group)
            .connect(host: "127.0.0.1", port: server.server.localAddress?.port ?? 0)
            .get()
        let evaluation = TLSHandshakeEvaluation(policy: SecurityPolicy(pinningMode: .certificate, pinnedCertificates: []), domain: TestPKI.host)
        try await evaluation.verify(plain).get()
        #expect(plain.isActive)
        try await plain.close()
    }
}
