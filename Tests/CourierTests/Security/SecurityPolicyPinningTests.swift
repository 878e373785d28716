import Courier
import CourierTestServer
import Foundation
import Testing

/// Pinning details beyond the matrix: re-issued certificates, pin encodings, pins that cannot be parsed.
@Suite("SecurityPolicy pinning")
struct SecurityPolicyPinningTests {
    @Test func publicKeyPinSurvivesReissueWithTheSameKey() async throws {
        let pki = try TestPKI()
        let reissued = try CertificateFactory.makeLeaf(
            commonName: "reissued",
            dnsNames: [TestPKI.host],
            issuer: pki.intermediate,
            reuseKey: pki.leaf.privateKey
        )
        #expect(reissued.derBytes != pki.leaf.derBytes)
        let chain = [reissued.derBytes, pki.intermediate.derBytes]
        #expect(await TestPKI.policy(.publicKey, pins: [pki.leaf], trustedRoots: [pki.root]).evaluateServerTrust(chain, forDomain: TestPKI.host))
        // A certificate pin is on the exact certificate, so the re-issued one no longer matches.
        #expect(await !TestPKI.policy(.certificate, pins: [pki.leaf], trustedRoots: [pki.root]).evaluateServerTrust(chain, forDomain: TestPKI.host))
    }

    @Test func publicKeyPinRejectsANewKey() async throws {
        let pki = try TestPKI()
        let rekeyed = try CertificateFactory.makeLeaf(commonName: "rekeyed", dnsNames: [TestPKI.host], issuer: pki.intermediate)
        let verdict = await TestPKI.policy(.publicKey, pins: [pki.leaf], trustedRoots: [pki.root])
            .evaluate([rekeyed.derBytes, pki.intermediate.derBytes], forDomain: TestPKI.host)
        #expect(verdict.failureReason?.contains("public key") == true, "\(verdict)")
    }

    @Test func rsaPublicKeyPin() async throws {
        let pki = try TestPKI(rootKey: .rsa2048, leafKey: .rsa2048)
        #expect(await TestPKI.policy(.publicKey, pins: [pki.root], trustedRoots: [pki.root]).evaluateServerTrust(pki.presentedChain, forDomain: TestPKI.host))
        #expect(await !TestPKI.policy(.publicKey, pins: [try TestPKI(leafKey: .rsa2048).leaf], trustedRoots: [pki.root])
            .evaluateServerTrust(pki.presentedChain, forDomain: TestPKI.host))
    }

    @Test func pemEncodedPinsAreAccepted() async throws {
        let pki = try TestPKI()
        let pem = Data(pki.leaf.pemCertificate.utf8)
        for mode in [SSLPinningMode.certificate, .publicKey] {
            let policy = SecurityPolicy(pinningMode: mode, pinnedCertificates: [pem])
            policy.allowInvalidCertificates = true
            #expect(await policy.evaluateServerTrust(pki.presentedChain, forDomain: TestPKI.host), "\(mode)")
        }
    }

    @Test func garbagePinsAreIgnoredSoTheyNeverMatch() async throws {
        let pki = try TestPKI()
        for mode in [SSLPinningMode.certificate, .publicKey] {
            let policy = SecurityPolicy(pinningMode: mode, pinnedCertificates: [Data("not a certificate".utf8)])
            policy.allowInvalidCertificates = true
            let verdict = await policy.evaluate(pki.presentedChain, forDomain: TestPKI.host)
            #expect(verdict.failureReason?.contains("no pinned certificate") == true, "\(mode): \(verdict)")
            // With a valid pin added, the garbage one does no harm.
            policy.pinnedCertificates.insert(pki.leaf.derBytes)
            #expect(await policy.evaluateServerTrust(pki.presentedChain, forDomain: TestPKI.host), "\(mode)")
        }
    }

    @Test func certificatePinsAreTheOnlyAnchorsInCertificateMode() async throws {
        // The root is trusted for the pre-check, but the pinned certificate belongs to another hierarchy:
        // the chain does not validate against the pins.
        let pki = try TestPKI()
        let other = try TestPKI()
        let verdict = await TestPKI.policy(.certificate, pins: [other.root], trustedRoots: [pki.root])
            .evaluate(pki.presentedChain, forDomain: TestPKI.host)
        #expect(verdict.failureReason?.contains("pinned certificates") == true, "\(verdict)")
    }

    @Test func oneMatchingPinAmongManySuffices() async throws {
        let pki = try TestPKI()
        let unrelated = try (0..<3).map { try CertificateFactory.makeRoot(commonName: "Unrelated \($0)") }
        for mode in [SSLPinningMode.certificate, .publicKey] {
            let policy = TestPKI.policy(mode, pins: unrelated + [pki.intermediate], trustedRoots: [pki.root])
            #expect(await policy.evaluateServerTrust(pki.presentedChain, forDomain: TestPKI.host), "\(mode)")
        }
    }
}
