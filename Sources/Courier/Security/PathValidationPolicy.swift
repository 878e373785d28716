import Foundation
import SwiftASN1
// The fixed validation time is an SPI of swift-certificates (its public initializer for it is deprecated in its favour).
@_spi(FixedExpiryValidationTime) import X509

/// RFC 5280 path validation (swift-certificates' `RFC5280Policy`), also accepting a leaf that is itself a trust anchor.
///
/// `RFC5280Policy` requires the last certificate of every chain to be a CA. When the leaf is one of the anchors
/// (a pinned leaf, or a self-signed server certificate given as a trusted root), the chain has that single
/// certificate and is usually not a CA, as with curl's `--cacert` and AFNetworking's leaf pinning. Such a chain is
/// accepted here when the certificate is within its validity dates; every longer chain goes through `RFC5280Policy`
/// unchanged. The Verifier only produces a one-certificate chain when the leaf exactly equals an anchor.
///
/// With `pathAlreadyVerified` (the TLS stack verified the path against the same roots), every chain meets this
/// policy, and the extensions RFC 5280 processing handles still count as handled so other policies can run.
struct PathValidationPolicy: VerifierPolicy {
    private var rfc5280: RFC5280Policy
    private let pathAlreadyVerified: Bool
    private let validationTime: Date?

    /// - Parameter validationTime: When validity dates are checked; `nil` for now.
    init(pathAlreadyVerified: Bool = false, validationTime: Date? = nil) {
        self.pathAlreadyVerified = pathAlreadyVerified
        self.validationTime = validationTime
        self.rfc5280 = validationTime.map { RFC5280Policy(fixedExpiryValidationTime: $0) } ?? RFC5280Policy()
    }

    var verifyingCriticalExtensions: [ASN1ObjectIdentifier] { rfc5280.verifyingCriticalExtensions }

    mutating func chainMeetsPolicyRequirements(chain: UnverifiedCertificateChain) async -> PolicyEvaluationResult {
        if pathAlreadyVerified {
            return .meetsPolicy
        }
        guard chain.count == 1 else {
            return rfc5280.chainMeetsPolicyRequirements(chain: chain)
        }
        let anchor = chain.leaf
        let now = validationTime ?? Date()
        if now < anchor.notValidBefore {
            return .failsToMeetPolicy(reason: "the certificate is not valid before \(anchor.notValidBefore)")
        }
        if now > anchor.notValidAfter {
            return .failsToMeetPolicy(reason: "the certificate expired on \(anchor.notValidAfter)")
        }
        return .meetsPolicy
    }
}
