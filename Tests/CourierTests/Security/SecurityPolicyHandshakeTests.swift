import Courier
import CourierTestServer
import Foundation
import Testing

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
        // A root above an unseen intermediate cannot be checked: fail closed.
        #expect(await !verdict(TestPKI.policy(.certificate, pins: [pki.root], trustedRoots: [pki.root]), leaf: pki.leaf).isTrusted)
    }

    @Test func publicKeyPinsVisibleFromTheLeaf() async throws {
        let pki = try TestPKI()
        #expect(await verdict(TestPKI.policy(.publicKey, pins: [pki.leaf], trustedRoots: [pki.root]), leaf: pki.leaf).isTrusted)
        // The intermediate's key is proven by its signature on the leaf.
        #expect(await verdict(TestPKI.policy(.publicKey, pins: [pki.intermediate], trustedRoots: [pki.root]), leaf: pki.leaf).isTrusted)
        #expect(await !verdict(TestPKI.policy(.publicKey, pins: [pki.root], trustedRoots: [pki.root]), leaf: pki.leaf).isTrusted)
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
