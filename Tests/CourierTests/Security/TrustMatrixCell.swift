import Courier
import CourierTestServer
import Foundation
import Testing

/// One cell of the evaluation matrix: a chain defect × a policy configuration × the expected verdict.
struct TrustMatrixCell: Sendable, CustomTestStringConvertible {
    /// The single thing that is wrong (or not) with the presented chain.
    enum Scenario: String, Sendable, CaseIterable {
        /// CA → intermediate → leaf, root in the policy's trusted roots, right host, in date.
        case trustedChain
        /// Same chain, root not trusted.
        case untrustedChain
        /// A self-signed leaf for the right host, not trusted.
        case selfSigned
        /// Trusted chain, leaf expired yesterday.
        case expiredLeaf
        /// Trusted chain, leaf valid from tomorrow.
        case notYetValidLeaf
        /// Trusted chain, leaf for another host.
        case wrongHost
    }

    /// Which certificate the policy pins.
    enum Pin: String, Sendable {
        case nothing, leaf, intermediate, root, unrelated
    }

    var mode: SSLPinningMode
    var allowInvalid: Bool
    var validatesDomainName: Bool = true
    var pin: Pin
    var scenario: Scenario
    var expected: Bool

    var testDescription: String {
        "\(mode) allowInvalid=\(allowInvalid) validatesDomain=\(validatesDomainName) pin=\(pin.rawValue) "
            + "\(scenario.rawValue) → \(expected ? "trusted" : "rejected")"
    }

    /// Builds the scenario's chain and the cell's policy, and evaluates for `TestPKI.host`.
    func evaluate() async throws -> ServerTrustEvaluation {
        let pki: TestPKI
        let presented: [Data]
        var trustedRoots: [IssuedCertificate] = []
        let pinTargets: (leaf: IssuedCertificate, intermediate: IssuedCertificate, root: IssuedCertificate)
        switch scenario {
        case .selfSigned:
            let selfSigned = try CertificateFactory.makeLeaf(commonName: TestPKI.host, dnsNames: [TestPKI.host], issuer: nil)
            presented = [selfSigned.derBytes]
            pinTargets = (selfSigned, selfSigned, selfSigned)
        default:
            switch scenario {
            case .expiredLeaf: pki = try TestPKI(leafValidity: TestPKI.expiredValidity)
            case .notYetValidLeaf: pki = try TestPKI(leafValidity: TestPKI.notYetValidValidity)
            case .wrongHost: pki = try TestPKI(dnsNames: ["other.test"])
            default: pki = try TestPKI()
            }
            presented = pki.presentedChain
            pinTargets = (pki.leaf, pki.intermediate, pki.root)
            if scenario != .untrustedChain { trustedRoots = [pki.root] }
        }
        let pins: [IssuedCertificate]
        switch pin {
        case .nothing: pins = []
        case .leaf: pins = [pinTargets.leaf]
        case .intermediate: pins = [pinTargets.intermediate]
        case .root: pins = [pinTargets.root]
        case .unrelated: pins = [try CertificateFactory.makeRoot(commonName: "Unrelated Root")]
        }
        let policy = TestPKI.policy(
            mode,
            pins: pins,
            trustedRoots: trustedRoots,
            allowInvalidCertificates: allowInvalid,
            validatesDomainName: validatesDomainName
        )
        return await policy.evaluate(presented, forDomain: TestPKI.host)
    }
}
