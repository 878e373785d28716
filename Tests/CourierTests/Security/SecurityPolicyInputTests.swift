import Courier
import CourierTestServer
import Foundation
import Testing

/// Defaults, settings, the refusal rule and malformed input.
@Suite("SecurityPolicy settings and input")
struct SecurityPolicyInputTests {
    @Test func defaultPolicySettings() {
        let policy = SecurityPolicy.default
        #expect(policy.pinningMode == .none)
        #expect(policy.pinnedCertificates.isEmpty)
        #expect(policy.trustedRootCertificates.isEmpty)
        #expect(!policy.allowInvalidCertificates)
        #expect(policy.validatesDomainName)
    }

    @Test func defaultReturnsAFreshPolicyEachTime() {
        let first = SecurityPolicy.default
        first.allowInvalidCertificates = true
        #expect(first !== SecurityPolicy.default)
        #expect(!SecurityPolicy.default.allowInvalidCertificates)
    }

    @Test func initWithPinnedCertificatesKeepsThem() throws {
        let pins: Set<Data> = [try CertificateFactory.makeRoot(commonName: "Pin").derBytes]
        let policy = SecurityPolicy(pinningMode: .certificate, pinnedCertificates: pins)
        #expect(policy.pinningMode == .certificate)
        #expect(policy.pinnedCertificates == pins)
        #expect(!policy.allowInvalidCertificates)
        #expect(policy.validatesDomainName)
    }

    @Test func allowInvalidWithDomainValidationAndNoPinsIsRefusedWithAReason() async throws {
        let selfSigned = try CertificateFactory.makeLeaf(commonName: "self", dnsNames: [TestPKI.host], issuer: nil)
        let policy = SecurityPolicy(pinningMode: .certificate, pinnedCertificates: [])
        policy.allowInvalidCertificates = true
        let verdict = await policy.evaluate([selfSigned.derBytes], forDomain: TestPKI.host)
        #expect(verdict.failureReason?.hasPrefix("refusing") == true, "\(verdict)")
        // The rule needs a domain to validate: without one, the pinning rules decide.
        #expect(await policy.evaluate([selfSigned.derBytes], forDomain: nil).failureReason?.contains("refusing") != true)
        // Pinning the certificate lifts the refusal.
        policy.pinnedCertificates = [selfSigned.derBytes]
        #expect(await policy.evaluateServerTrust([selfSigned.derBytes], forDomain: TestPKI.host))
    }

    @Test func settingsChangeTheNextEvaluation() async throws {
        let pki = try TestPKI(dnsNames: ["other.test"])
        let policy = TestPKI.policy(.none, trustedRoots: [pki.root])
        #expect(await !policy.evaluateServerTrust(pki.presentedChain, forDomain: TestPKI.host))
        policy.validatesDomainName = false
        #expect(await policy.evaluateServerTrust(pki.presentedChain, forDomain: TestPKI.host))
        policy.trustedRootCertificates = []
        #expect(await !policy.evaluateServerTrust(pki.presentedChain, forDomain: TestPKI.host))
    }

    @Test func pemEncodedTrustedRootsAreAccepted() async throws {
        let pki = try TestPKI()
        let policy = SecurityPolicy.default
        policy.trustedRootCertificates = [Data(pki.root.pemCertificate.utf8)]
        #expect(await policy.evaluateServerTrust(pki.presentedChain, forDomain: TestPKI.host))
    }

    @Test(arguments: [
        [Data()],
        [Data([0x30, 0x03, 0x02, 0x01])],
        [Data(repeating: 0xFF, count: 4096)],
        [Data("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n".utf8)],
    ])
    func malformedLeafIsRejectedWithAReason(chain: [Data]) async throws {
        for mode in SSLPinningMode.allCases {
            let policy = SecurityPolicy(pinningMode: mode, pinnedCertificates: chain.count == 1 ? Set(chain) : [])
            policy.allowInvalidCertificates = true
            policy.validatesDomainName = false
            let verdict = await policy.evaluate(chain, forDomain: TestPKI.host)
            #expect(verdict.failureReason?.contains("certificate 0") == true, "\(mode): \(verdict)")
        }
    }

    @Test func malformedIntermediateIsRejected() async throws {
        let pki = try TestPKI()
        let policy = TestPKI.policy(.none, trustedRoots: [pki.root])
        let verdict = await policy.evaluate([pki.leaf.derBytes, Data([0x01, 0x02])], forDomain: TestPKI.host)
        #expect(verdict.failureReason?.contains("certificate 1") == true, "\(verdict)")
    }

    @Test func emptyChainIsRejected() async {
        let policy = SecurityPolicy.default
        policy.allowInvalidCertificates = true
        policy.validatesDomainName = false
        let verdict = await policy.evaluate([], forDomain: nil)
        #expect(verdict.failureReason?.contains("no certificate") == true, "\(verdict)")
    }

    @Test func evaluationDescriptions() {
        #expect(ServerTrustEvaluation.trusted.description == "trusted")
        #expect(ServerTrustEvaluation.rejected(reason: "x").description == "rejected: x")
        #expect(ServerTrustEvaluation.rejected(reason: "x").failureReason == "x")
        #expect(ServerTrustEvaluation.trusted.failureReason == nil)
    }
}
