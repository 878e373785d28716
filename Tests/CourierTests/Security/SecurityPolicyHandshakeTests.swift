import Courier
import CourierTestServer
import Foundation
import Testing
import X509

/// Evaluation of a leaf-only chain that the TLS stack has already verified (what AsyncHTTPClient exposes).
@Suite("SecurityPolicy after TLS stack verification")
struct SecurityPolicyHandshakeTests {
    private func verdict(_ policy: SecurityPolicy, leaf: IssuedCertificate, domain: String? = TestPKI.host) async -> ServerTrustEvaluation {
        await policy.evaluate([leaf.derBytes], forDomain: domain, verifiedByTLSStackWith: policy.tlsStackRequirements)
    }

    @Test func requirementsFollowTheSettings() throws {
        let root = try CertificateFactory.makeRoot(commonName: "Root")
        let policy = SecurityPolicy.default
        #expect(policy.tlsStackRequirements == TLSStackRequirements(verifiesChain: true, additionalTrustRoots: []))
        policy.trustedRootCertificates = [Data(root.pemCertificate.utf8)]
        #expect(policy.tlsStackRequirements.additionalTrustRoots == [root.derBytes])
        policy.allowInvalidCertificates = true
        #expect(policy.tlsStackRequirements == TLSStackRequirements(verifiesChain: false, additionalTrustRoots: []))
    }

    @Test func defaultModeChecksOnlyTheHostOnAVerifiedLeaf() async throws {
        let pki = try TestPKI()
        let policy = TestPKI.policy(.none, trustedRoots: [pki.root])
        #expect(await verdict(policy, leaf: pki.leaf).isTrusted)
        #expect(await !verdict(policy, leaf: pki.leaf, domain: "other.test").isTrusted)
        // The same leaf alone, without the TLS stack's verification, does not reach the root.
        #expect(await !policy.evaluateServerTrust([pki.leaf.derBytes], forDomain: TestPKI.host))
    }

    @Test func commonNameIsNotUsedOnAVerifiedLeafEither() async throws {
        let root = try CertificateFactory.makeRoot(commonName: "Root")
        let leaf = try CertificateFactory.makeLeaf(commonName: TestPKI.host, dnsNames: [], issuer: root)
        #expect(await !verdict(TestPKI.policy(.none, trustedRoots: [root]), leaf: leaf).isTrusted)
    }

    @Test func changedRequirementsAreRejected() async throws {
        let pki = try TestPKI()
        let policy = TestPKI.policy(.none, trustedRoots: [pki.root])
        let requirements = policy.tlsStackRequirements
        policy.trustedRootCertificates = []
        let verdict = await policy.evaluate([pki.leaf.derBytes], forDomain: TestPKI.host, verifiedByTLSStackWith: requirements)
        #expect(verdict.failureReason?.contains("changed") == true, "\(verdict)")
    }

    @Test func certificatePinsVisibleFromTheLeaf() async throws {
        let pki = try TestPKI()
        let directLeaf = try CertificateFactory.makeLeaf(commonName: "direct", dnsNames: [TestPKI.host], issuer: pki.root)
        #expect(await verdict(TestPKI.policy(.certificate, pins: [pki.leaf], trustedRoots: [pki.root]), leaf: pki.leaf).isTrusted)
        #expect(await verdict(TestPKI.policy(.certificate, pins: [pki.intermediate], trustedRoots: [pki.root]), leaf: pki.leaf).isTrusted)
        #expect(await verdict(TestPKI.policy(.certificate, pins: [pki.root], trustedRoots: [pki.root]), leaf: directLeaf).isTrusted)
    }

    /// A pinned root above an intermediate the leaf does not show is left to the TLS stack: it becomes the only
    /// anchor, so a completed handshake proves the chain reached it (nginx's chain tests prove the handshake part).
    @Test func pinnedRootsBecomeTheTLSStacksOnlyAnchors() async throws {
        let pki = try TestPKI()
        let other = try CertificateFactory.makeRoot(commonName: "Other root")
        for mode in [SSLPinningMode.certificate, .publicKey] {
            let policy = TestPKI.policy(mode, pins: [pki.root], trustedRoots: [pki.root, other])
            #expect(policy.tlsStackRequirements.pinnedAnchors == [pki.root.derBytes], "\(mode)")
            #expect(policy.tlsStackRequirements.additionalTrustRoots.isEmpty)
            #expect(await verdict(policy, leaf: pki.leaf).isTrusted, "\(mode)")
            #expect(await !verdict(policy, leaf: pki.leaf, domain: "other.test").isTrusted, "\(mode)")
        }
        // A leaf or an intermediate is not an anchor; nor is a pin in the default mode.
        #expect(TestPKI.policy(.certificate, pins: [pki.leaf, pki.intermediate], trustedRoots: [pki.root]).tlsStackRequirements.pinnedAnchors.isEmpty)
        #expect(TestPKI.policy(.none, pins: [pki.root], trustedRoots: [pki.root]).tlsStackRequirements.pinnedAnchors.isEmpty)
        // A key pinned alone anchors on the trusted root that carries it.
        let keyPinned = TestPKI.policy(.publicKey, trustedRoots: [pki.root, other])
        keyPinned.pinnedPublicKeys = [Data(try pki.root.certificate.publicKey.serializeAsPEM().pemString.utf8)]
        #expect(keyPinned.tlsStackRequirements.pinnedAnchors == [pki.root.derBytes])
        // Pinning changes the TLS settings, so the transport must see a new revision (checked through requirements).
        let policy = TestPKI.policy(.certificate, pins: [pki.leaf], trustedRoots: [pki.root])
        let before = policy.tlsStackRequirements
        policy.pinnedCertificates = [pki.root.derBytes]
        #expect(policy.tlsStackRequirements != before)
        let verdictWithOldRequirements = await policy.evaluate([pki.leaf.derBytes], forDomain: TestPKI.host, verifiedByTLSStackWith: before)
        #expect(verdictWithOldRequirements.failureReason?.contains("changed") == true)
    }

    @Test func pinnedRootMustBeTrustedUnlessInvalidCertificatesAreAllowed() async throws {
        let pki = try TestPKI()
        let untrusted = TestPKI.policy(.certificate, pins: [pki.root])
        let verdict = await verdict(untrusted, leaf: pki.leaf)
        #expect(verdict.failureReason?.contains("not trusted") == true, "\(verdict)")
        let allowed = TestPKI.policy(.certificate, pins: [pki.root], allowInvalidCertificates: true)
        #expect(allowed.tlsStackRequirements.verifiesChain)
        #expect(await self.verdict(allowed, leaf: pki.leaf).isTrusted)
    }

    @Test func publicKeyPinsVisibleFromTheLeaf() async throws {
        let pki = try TestPKI()
        #expect(await verdict(TestPKI.policy(.publicKey, pins: [pki.leaf], trustedRoots: [pki.root]), leaf: pki.leaf).isTrusted)
        // The intermediate's key is proven by its signature on the leaf.
        #expect(await verdict(TestPKI.policy(.publicKey, pins: [pki.intermediate], trustedRoots: [pki.root]), leaf: pki.leaf).isTrusted)
        #expect(await !verdict(TestPKI.policy(.publicKey, pins: [try TestPKI().intermediate], trustedRoots: [pki.root]), leaf: pki.leaf).isTrusted)
    }

    @Test func allowInvalidEvaluatesTheLeafByThePinningRulesAlone() async throws {
        let selfSigned = try CertificateFactory.makeLeaf(commonName: "self", dnsNames: [TestPKI.host], issuer: nil)
        let policy = TestPKI.policy(.certificate, pins: [selfSigned], allowInvalidCertificates: true)
        #expect(policy.tlsStackRequirements.verifiesChain == false)
        #expect(await verdict(policy, leaf: selfSigned).isTrusted)
        #expect(await !verdict(policy, leaf: selfSigned, domain: "other.test").isTrusted)
        let stranger = try CertificateFactory.makeLeaf(commonName: "stranger", dnsNames: [TestPKI.host], issuer: nil)
        #expect(await !verdict(policy, leaf: stranger).isTrusted)
    }
}
