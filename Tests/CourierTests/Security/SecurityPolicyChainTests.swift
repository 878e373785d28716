import Courier
import CourierTestServer
import Foundation
import Testing

/// Chain building in the default mode: shapes of chains, key algorithms, dates.
@Suite("SecurityPolicy chains")
struct SecurityPolicyChainTests {
    @Test func caToLeafWithoutIntermediate() async throws {
        let root = try CertificateFactory.makeRoot(commonName: "Root")
        let leaf = try CertificateFactory.makeLeaf(commonName: "leaf", dnsNames: [TestPKI.host], issuer: root)
        #expect(await TestPKI.policy(.none, trustedRoots: [root]).evaluateServerTrust([leaf.derBytes], forDomain: TestPKI.host))
        #expect(await !TestPKI.policy(.none).evaluateServerTrust([leaf.derBytes], forDomain: TestPKI.host))
    }

    @Test func caToIntermediateToLeaf() async throws {
        let pki = try TestPKI()
        let policy = TestPKI.policy(.none, trustedRoots: [pki.root])
        #expect(await policy.evaluateServerTrust(pki.presentedChain, forDomain: TestPKI.host))
        // The root may be sent too.
        #expect(await policy.evaluateServerTrust(pki.presentedChain + [pki.root.derBytes], forDomain: TestPKI.host))
    }

    @Test func missingIntermediateIsRejected() async throws {
        let pki = try TestPKI()
        let verdict = await TestPKI.policy(.none, trustedRoots: [pki.root]).evaluate([pki.leaf.derBytes], forDomain: TestPKI.host)
        #expect(!verdict.isTrusted)
        #expect(verdict.failureReason?.contains("trusted root") == true, "\(verdict)")
    }

    @Test func trustingTheIntermediateIsEnough() async throws {
        let pki = try TestPKI()
        #expect(await TestPKI.policy(.none, trustedRoots: [pki.intermediate]).evaluateServerTrust(pki.presentedChain, forDomain: TestPKI.host))
    }

    @Test func selfSignedLeafIsTrustedOnlyWhenItIsATrustedRoot() async throws {
        let selfSigned = try CertificateFactory.makeLeaf(commonName: "self", dnsNames: [TestPKI.host], issuer: nil)
        #expect(await !TestPKI.policy(.none).evaluateServerTrust([selfSigned.derBytes], forDomain: TestPKI.host))
        #expect(await TestPKI.policy(.none, trustedRoots: [selfSigned]).evaluateServerTrust([selfSigned.derBytes], forDomain: TestPKI.host))
        #expect(await !TestPKI.policy(.none, trustedRoots: [selfSigned]).evaluateServerTrust([selfSigned.derBytes], forDomain: "other.test"))
    }

    @Test func anotherRootWithTheSameNameDoesNotHelp() async throws {
        let pki = try TestPKI()
        let impostor = try CertificateFactory.makeRoot(commonName: "Courier Test Root")
        let verdict = await TestPKI.policy(.none, trustedRoots: [impostor]).evaluate(pki.presentedChain, forDomain: TestPKI.host)
        #expect(!verdict.isTrusted, "\(verdict)")
    }

    @Test func expiredAndNotYetValidLeavesAreRejected() async throws {
        for validity in [TestPKI.expiredValidity, TestPKI.notYetValidValidity] {
            let pki = try TestPKI(leafValidity: validity)
            let verdict = await TestPKI.policy(.none, trustedRoots: [pki.root]).evaluate(pki.presentedChain, forDomain: TestPKI.host)
            #expect(!verdict.isTrusted, "\(verdict)")
        }
    }

    @Test func expiredRootIsRejected() async throws {
        let root = try CertificateFactory.makeRoot(
            commonName: "Old Root",
            notBefore: Date().addingTimeInterval(-3 * 86_400),
            notAfter: Date().addingTimeInterval(-86_400)
        )
        let leaf = try CertificateFactory.makeLeaf(commonName: "leaf", dnsNames: [TestPKI.host], issuer: root)
        #expect(await !TestPKI.policy(.none, trustedRoots: [root]).evaluateServerTrust([leaf.derBytes], forDomain: TestPKI.host))
    }

    @Test func expiredSelfSignedAnchorIsRejected() async throws {
        let selfSigned = try CertificateFactory.makeLeaf(
            commonName: "self",
            dnsNames: [TestPKI.host],
            issuer: nil,
            notBefore: TestPKI.expiredValidity.lowerBound,
            notAfter: TestPKI.expiredValidity.upperBound
        )
        let verdict = await TestPKI.policy(.none, trustedRoots: [selfSigned]).evaluate([selfSigned.derBytes], forDomain: TestPKI.host)
        #expect(verdict.failureReason?.contains("expired") == true, "\(verdict)")
    }

    @Test(arguments: [
        (TestKeyKind.rsa2048, TestKeyKind.rsa2048, TestKeyKind.rsa2048),
        (.rsa2048, .p256, .p256),
        (.p256, .rsa2048, .rsa2048),
        (.p256, .p256, .p256),
    ])
    func rsaAndECDSAKeys(rootKey: TestKeyKind, intermediateKey: TestKeyKind, leafKey: TestKeyKind) async throws {
        let pki = try TestPKI(rootKey: rootKey, intermediateKey: intermediateKey, leafKey: leafKey)
        #expect(await TestPKI.policy(.none, trustedRoots: [pki.root]).evaluateServerTrust(pki.presentedChain, forDomain: TestPKI.host))
        #expect(await TestPKI.policy(.certificate, pins: [pki.leaf], trustedRoots: [pki.root]).evaluateServerTrust(pki.presentedChain, forDomain: TestPKI.host))
        #expect(await TestPKI.policy(.publicKey, pins: [pki.leaf], trustedRoots: [pki.root]).evaluateServerTrust(pki.presentedChain, forDomain: TestPKI.host))
        #expect(await !TestPKI.policy(.none).evaluateServerTrust(pki.presentedChain, forDomain: TestPKI.host))
    }

    @Test func tamperedSignatureIsRejected() async throws {
        let pki = try TestPKI()
        var leafBytes = pki.leaf.derBytes
        leafBytes[leafBytes.count - 2] ^= 0xFF  // inside the signature BIT STRING
        let verdict = await TestPKI.policy(.none, trustedRoots: [pki.root]).evaluate([leafBytes, pki.intermediate.derBytes], forDomain: TestPKI.host)
        #expect(!verdict.isTrusted, "\(verdict)")
    }

    @Test func leafSignedByAnImpostorWithTheIntermediatesNameIsRejected() async throws {
        let pki = try TestPKI()
        let impostor = try CertificateFactory.makeIntermediate(commonName: "Courier Test Intermediate", issuer: pki.root)
        let forged = try CertificateFactory.makeLeaf(commonName: "leaf", dnsNames: [TestPKI.host], issuer: impostor)
        let policy = TestPKI.policy(.none, trustedRoots: [pki.root])
        // Sent with the genuine intermediate, whose key did not sign it.
        #expect(await !policy.evaluateServerTrust([forged.derBytes, pki.intermediate.derBytes], forDomain: TestPKI.host))
        #expect(await policy.evaluateServerTrust([forged.derBytes, impostor.derBytes], forDomain: TestPKI.host))
    }
}
