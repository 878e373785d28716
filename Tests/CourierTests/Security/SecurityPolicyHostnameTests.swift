import Courier
import CourierTestServer
import Foundation
import Testing

/// Host name matching in the default mode: SAN DNS names (one left-most wildcard label), IP SANs, no CN fallback.
@Suite("SecurityPolicy host names")
struct SecurityPolicyHostnameTests {
    private func verdict(dnsNames: [String], ipAddresses: [String] = [], domain: String?) async throws -> ServerTrustEvaluation {
        let pki = try TestPKI(dnsNames: dnsNames, ipAddresses: ipAddresses)
        return await TestPKI.policy(.none, trustedRoots: [pki.root]).evaluate(pki.presentedChain, forDomain: domain)
    }

    @Test(arguments: [
        ("x.a.com", true),
        ("X.A.COM", true),
        ("a.com", false),
        ("x.y.a.com", false),
        ("x.b.com", false),
    ])
    func wildcardCoversExactlyOneLabel(domain: String, expected: Bool) async throws {
        let verdict = try await verdict(dnsNames: ["*.a.com"], domain: domain)
        #expect(verdict.isTrusted == expected, "\(verdict)")
    }

    @Test func exactNameMatches() async throws {
        #expect(try await verdict(dnsNames: ["api.example.com"], domain: "api.example.com").isTrusted)
        #expect(try await !verdict(dnsNames: ["api.example.com"], domain: "www.example.com").isTrusted)
    }

    @Test func wrongHostReasonNamesTheHost() async throws {
        let verdict = try await verdict(dnsNames: ["other.test"], domain: "example.test")
        #expect(verdict.failureReason?.contains("example.test") == true, "\(verdict)")
    }

    @Test(arguments: [
        ("127.0.0.1", true),
        ("::1", true),
        ("[::1]", true),
        ("127.0.0.2", false),
        ("::2", false),
    ])
    func ipAddressSubjectAlternativeNames(domain: String, expected: Bool) async throws {
        let verdict = try await verdict(dnsNames: ["localhost"], ipAddresses: ["127.0.0.1", "::1"], domain: domain)
        #expect(verdict.isTrusted == expected, "\(verdict)")
    }

    @Test func ipAddressDoesNotMatchDNSOnlyCertificate() async throws {
        #expect(try await !verdict(dnsNames: ["localhost"], domain: "127.0.0.1").isTrusted)
    }

    @Test func commonNameIsNeverUsed() async throws {
        let root = try CertificateFactory.makeRoot(commonName: "Root")
        let leaf = try CertificateFactory.makeLeaf(commonName: TestPKI.host, dnsNames: [], ipAddresses: [], issuer: root)
        let policy = TestPKI.policy(.none, trustedRoots: [root])
        let verdict = await policy.evaluate([leaf.derBytes], forDomain: TestPKI.host)
        #expect(!verdict.isTrusted)
        #expect(verdict.failureReason?.contains("common name") == true, "\(verdict)")
        // Without a domain there is nothing to match, and the chain itself is fine.
        #expect(await policy.evaluateServerTrust([leaf.derBytes], forDomain: nil))
    }

    @Test func nilDomainSkipsTheHostCheckButNotTheChain() async throws {
        let pki = try TestPKI(dnsNames: ["other.test"])
        #expect(await TestPKI.policy(.none, trustedRoots: [pki.root]).evaluateServerTrust(pki.presentedChain, forDomain: nil))
        #expect(await !TestPKI.policy(.none).evaluateServerTrust(pki.presentedChain, forDomain: nil))
    }
}
