import Courier
import Testing

/// Every pinning mode × allowInvalidCertificates × chain defect, with AFNetworking's expected verdicts written out.
@Suite("SecurityPolicy evaluation matrix")
struct SecurityPolicyMatrixTests {
    static let cells: [TrustMatrixCell] = [
        // .none, strict: only the trusted chain passes.
        .init(mode: .none, allowInvalid: false, pin: .nothing, scenario: .trustedChain, expected: true),
        .init(mode: .none, allowInvalid: false, pin: .nothing, scenario: .untrustedChain, expected: false),
        .init(mode: .none, allowInvalid: false, pin: .nothing, scenario: .selfSigned, expected: false),
        .init(mode: .none, allowInvalid: false, pin: .nothing, scenario: .expiredLeaf, expected: false),
        .init(mode: .none, allowInvalid: false, pin: .nothing, scenario: .notYetValidLeaf, expected: false),
        .init(mode: .none, allowInvalid: false, pin: .nothing, scenario: .wrongHost, expected: false),
        // .none, strict chain but no host check: only the host defect is forgiven.
        .init(mode: .none, allowInvalid: false, validatesDomainName: false, pin: .nothing, scenario: .trustedChain, expected: true),
        .init(mode: .none, allowInvalid: false, validatesDomainName: false, pin: .nothing, scenario: .untrustedChain, expected: false),
        .init(mode: .none, allowInvalid: false, validatesDomainName: false, pin: .nothing, scenario: .expiredLeaf, expected: false),
        .init(mode: .none, allowInvalid: false, validatesDomainName: false, pin: .nothing, scenario: .wrongHost, expected: true),
        // .none + allowInvalid + validatesDomainName: refused whatever the chain.
        .init(mode: .none, allowInvalid: true, pin: .nothing, scenario: .trustedChain, expected: false),
        .init(mode: .none, allowInvalid: true, pin: .nothing, scenario: .untrustedChain, expected: false),
        .init(mode: .none, allowInvalid: true, pin: .nothing, scenario: .selfSigned, expected: false),
        .init(mode: .none, allowInvalid: true, pin: .nothing, scenario: .expiredLeaf, expected: false),
        .init(mode: .none, allowInvalid: true, pin: .nothing, scenario: .notYetValidLeaf, expected: false),
        .init(mode: .none, allowInvalid: true, pin: .nothing, scenario: .wrongHost, expected: false),
        // .none + allowInvalid without host check: everything passes.
        .init(mode: .none, allowInvalid: true, validatesDomainName: false, pin: .nothing, scenario: .trustedChain, expected: true),
        .init(mode: .none, allowInvalid: true, validatesDomainName: false, pin: .nothing, scenario: .untrustedChain, expected: true),
        .init(mode: .none, allowInvalid: true, validatesDomainName: false, pin: .nothing, scenario: .selfSigned, expected: true),
        .init(mode: .none, allowInvalid: true, validatesDomainName: false, pin: .nothing, scenario: .expiredLeaf, expected: true),
        .init(mode: .none, allowInvalid: true, validatesDomainName: false, pin: .nothing, scenario: .notYetValidLeaf, expected: true),
        .init(mode: .none, allowInvalid: true, validatesDomainName: false, pin: .nothing, scenario: .wrongHost, expected: true),

        // .certificate, strict: the chain must also be trusted without the pins (AFNetworking's order).
        .init(mode: .certificate, allowInvalid: false, pin: .leaf, scenario: .trustedChain, expected: true),
        .init(mode: .certificate, allowInvalid: false, pin: .leaf, scenario: .untrustedChain, expected: false),
        .init(mode: .certificate, allowInvalid: false, pin: .leaf, scenario: .selfSigned, expected: false),
        .init(mode: .certificate, allowInvalid: false, pin: .leaf, scenario: .expiredLeaf, expected: false),
        .init(mode: .certificate, allowInvalid: false, pin: .leaf, scenario: .notYetValidLeaf, expected: false),
        .init(mode: .certificate, allowInvalid: false, pin: .leaf, scenario: .wrongHost, expected: false),
        .init(mode: .certificate, allowInvalid: false, pin: .intermediate, scenario: .trustedChain, expected: true),
        .init(mode: .certificate, allowInvalid: false, pin: .root, scenario: .trustedChain, expected: true),
        .init(mode: .certificate, allowInvalid: false, pin: .unrelated, scenario: .trustedChain, expected: false),
        .init(mode: .certificate, allowInvalid: false, pin: .nothing, scenario: .trustedChain, expected: false),
        // .certificate + allowInvalid: the pins are the only anchors; dates and host are still checked.
        .init(mode: .certificate, allowInvalid: true, pin: .leaf, scenario: .trustedChain, expected: true),
        .init(mode: .certificate, allowInvalid: true, pin: .leaf, scenario: .untrustedChain, expected: true),
        .init(mode: .certificate, allowInvalid: true, pin: .leaf, scenario: .selfSigned, expected: true),
        .init(mode: .certificate, allowInvalid: true, pin: .leaf, scenario: .expiredLeaf, expected: false),
        .init(mode: .certificate, allowInvalid: true, pin: .leaf, scenario: .notYetValidLeaf, expected: false),
        .init(mode: .certificate, allowInvalid: true, pin: .leaf, scenario: .wrongHost, expected: false),
        .init(mode: .certificate, allowInvalid: true, validatesDomainName: false, pin: .leaf, scenario: .wrongHost, expected: true),
        .init(mode: .certificate, allowInvalid: true, pin: .intermediate, scenario: .untrustedChain, expected: true),
        .init(mode: .certificate, allowInvalid: true, pin: .root, scenario: .untrustedChain, expected: true),
        .init(mode: .certificate, allowInvalid: true, pin: .unrelated, scenario: .untrustedChain, expected: false),
        .init(mode: .certificate, allowInvalid: true, pin: .unrelated, scenario: .selfSigned, expected: false),
        .init(mode: .certificate, allowInvalid: true, pin: .nothing, scenario: .selfSigned, expected: false),

        // .publicKey, strict: trusted chain and a matching key.
        .init(mode: .publicKey, allowInvalid: false, pin: .leaf, scenario: .trustedChain, expected: true),
        .init(mode: .publicKey, allowInvalid: false, pin: .leaf, scenario: .untrustedChain, expected: false),
        .init(mode: .publicKey, allowInvalid: false, pin: .leaf, scenario: .selfSigned, expected: false),
        .init(mode: .publicKey, allowInvalid: false, pin: .leaf, scenario: .expiredLeaf, expected: false),
        .init(mode: .publicKey, allowInvalid: false, pin: .leaf, scenario: .notYetValidLeaf, expected: false),
        .init(mode: .publicKey, allowInvalid: false, pin: .leaf, scenario: .wrongHost, expected: false),
        .init(mode: .publicKey, allowInvalid: false, pin: .intermediate, scenario: .trustedChain, expected: true),
        .init(mode: .publicKey, allowInvalid: false, pin: .root, scenario: .trustedChain, expected: true),
        .init(mode: .publicKey, allowInvalid: false, pin: .unrelated, scenario: .trustedChain, expected: false),
        .init(mode: .publicKey, allowInvalid: false, pin: .nothing, scenario: .trustedChain, expected: false),
        // .publicKey + allowInvalid: the key is the identity; chain, dates and host are not checked (as AFNetworking).
        .init(mode: .publicKey, allowInvalid: true, pin: .leaf, scenario: .trustedChain, expected: true),
        .init(mode: .publicKey, allowInvalid: true, pin: .leaf, scenario: .untrustedChain, expected: true),
        .init(mode: .publicKey, allowInvalid: true, pin: .leaf, scenario: .selfSigned, expected: true),
        .init(mode: .publicKey, allowInvalid: true, pin: .leaf, scenario: .expiredLeaf, expected: true),
        .init(mode: .publicKey, allowInvalid: true, pin: .leaf, scenario: .notYetValidLeaf, expected: true),
        .init(mode: .publicKey, allowInvalid: true, pin: .leaf, scenario: .wrongHost, expected: true),
        .init(mode: .publicKey, allowInvalid: true, pin: .intermediate, scenario: .untrustedChain, expected: true),
        // The root is not sent, but its key verifiably signed the intermediate that was.
        .init(mode: .publicKey, allowInvalid: true, pin: .root, scenario: .untrustedChain, expected: true),
        .init(mode: .publicKey, allowInvalid: true, pin: .unrelated, scenario: .untrustedChain, expected: false),
        .init(mode: .publicKey, allowInvalid: true, pin: .unrelated, scenario: .selfSigned, expected: false),
        .init(mode: .publicKey, allowInvalid: true, pin: .nothing, scenario: .selfSigned, expected: false),
    ]

    @Test(arguments: cells)
    func cell(_ cell: TrustMatrixCell) async throws {
        let verdict = try await cell.evaluate()
        #expect(verdict.isTrusted == cell.expected, "\(verdict)")
        #expect((verdict.failureReason == nil) == verdict.isTrusted)
    }
}
