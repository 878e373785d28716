import Courier
import CourierTestServer
import Foundation

/// A root → intermediate → leaf hierarchy generated for one test, and policy construction helpers.
struct TestPKI {
    static let host = "example.test"

    let root: IssuedCertificate
    let intermediate: IssuedCertificate
    let leaf: IssuedCertificate

    /// What the server sends: the leaf and the intermediate (never the root).
    var presentedChain: [Data] { [leaf.derBytes, intermediate.derBytes] }

    /// A fresh hierarchy; the leaf names `dnsNames` and `ipAddresses`.
    init(
        dnsNames: [String] = [TestPKI.host],
        ipAddresses: [String] = [],
        rootKey: TestKeyKind = .p256,
        intermediateKey: TestKeyKind = .p256,
        leafKey: TestKeyKind = .p256,
        leafValidity: ClosedRange<Date> = Date().addingTimeInterval(-3600)...Date().addingTimeInterval(86_400)
    ) throws {
        root = try CertificateFactory.makeRoot(commonName: "Courier Test Root", key: rootKey)
        intermediate = try CertificateFactory.makeIntermediate(
            commonName: "Courier Test Intermediate",
            issuer: root,
            key: intermediateKey
        )
        leaf = try CertificateFactory.makeLeaf(
            commonName: dnsNames.first ?? "leaf",
            dnsNames: dnsNames,
            ipAddresses: ipAddresses,
            issuer: intermediate,
            key: leafKey,
            notBefore: leafValidity.lowerBound,
            notAfter: leafValidity.upperBound
        )
    }

    static let expiredValidity = Date().addingTimeInterval(-2 * 86_400)...Date().addingTimeInterval(-86_400)
    static let notYetValidValidity = Date().addingTimeInterval(86_400)...Date().addingTimeInterval(2 * 86_400)

    /// A policy with the given settings; `pins` and `trustedRoots` are DER-encoded from the certificates.
    static func policy(
        _ mode: SSLPinningMode,
        pins: [IssuedCertificate] = [],
        trustedRoots: [IssuedCertificate] = [],
        allowInvalidCertificates: Bool = false,
        validatesDomainName: Bool = true
    ) -> SecurityPolicy {
        let policy = SecurityPolicy(pinningMode: mode, pinnedCertificates: Set(pins.map(\.derBytes)))
        policy.trustedRootCertificates = Set(trustedRoots.map(\.derBytes))
        policy.allowInvalidCertificates = allowInvalidCertificates
        policy.validatesDomainName = validatesDomainName
        return policy
    }
}
