import Foundation
import X509

/// AFNetworking's server-trust rules applied to a snapshot of a ``SecurityPolicy``'s settings.
///
/// A value type with no I/O of its own (the system trust store is read once per process by swift-certificates),
/// so a policy can be mutated while an evaluation of its previous settings runs.
struct TrustEvaluator: Sendable {
    var pinningMode: SSLPinningMode
    var pinnedCertificates: Set<Data>
    /// Public keys pinned without a certificate (DER SubjectPublicKeyInfo or PEM `PUBLIC KEY`).
    var pinnedPublicKeys: Set<Data> = []
    var trustedRootCertificates: Set<Data>
    var allowInvalidCertificates: Bool
    var validatesDomainName: Bool
    /// The moment validity dates are checked at, or `nil` for the time of the evaluation.
    var validationDate: Date?
    /// The platform's trust store; swift-certificates reads `/etc/ssl/certs/ca-certificates.crt` (or the Fedora path).
    /// Computed, not stored: the first use starts parsing every system root in the background (about 9 % of a
    /// `courier get`'s CPU), which a handshake the TLS stack verified never needs.
    var systemTrustRoots: CertificateStore { .systemTrustRoots }

    /// What the TLS stack verifies for these settings: the chain against the pinned certificate authorities when
    /// there are any, else against the same roots as this evaluator, unless invalid certificates are allowed.
    var tlsStackRequirements: TLSStackRequirements {
        // The TLS stack checks dates against its own clock, so with a validation date the path is left to this evaluator.
        guard validationDate == nil else {
            return TLSStackRequirements(verifiesChain: false, additionalTrustRoots: [])
        }
        let anchors = pinnedAuthorities
        if !anchors.isEmpty {
            return TLSStackRequirements(pinnedAnchors: Set(anchors.compactMap { try? CertificateDecoding.derBytes(of: $0) }))
        }
        return TLSStackRequirements(verifiesChain: !allowInvalidCertificates, additionalTrustRoots: trustedRootCertificates)
    }

    /// The pins that can anchor a chain: pinned certificates that are self-signed certificate authorities (a root),
    /// and in `.publicKey` mode also the policy's trusted roots whose key is pinned. A pin on such an authority is met
    /// when the chain leads to it, which only the TLS stack can see (the engine hands over the leaf alone).
    var pinnedAuthorities: [Certificate] {
        guard pinningMode != .none else { return [] }
        let pinned = Self.certificates(in: pinnedCertificates)
        var authorities = pinned.filter(Self.isSelfSignedAuthority)
        if pinningMode == .publicKey {
            let pinnedKeys = Set(
                (pinned.map(\.publicKey) + pinnedPublicKeys.flatMap { CertificateDecoding.publicKeys(fromDERorPEM: $0) })
                    .compactMap { try? CertificateDecoding.subjectPublicKeyInfo(of: $0) }
            )
            authorities += Self.certificates(in: trustedRootCertificates).filter { root in
                guard Self.isSelfSignedAuthority(root), !authorities.contains(root),
                    let key = try? CertificateDecoding.subjectPublicKeyInfo(of: root)
                else { return false }
                return pinnedKeys.contains(key)
            }
        }
        return authorities
    }

    /// A certificate authority that issued its own certificate: the top of a chain, a trust anchor.
    private static func isSelfSignedAuthority(_ certificate: Certificate) -> Bool {
        guard certificate.subject == certificate.issuer,
            case .isCertificateAuthority = try? certificate.extensions.basicConstraints
        else { return false }
        return certificate.publicKey.isValidSignature(certificate.signature, for: certificate)
    }

    /// Evaluates `chain` (DER, leaf first, as the server sent it) for a connection to `domain`.
    ///
    /// - Parameter tlsStack: the requirements the TLS stack verified the chain with (this evaluator's own), or nil
    ///   when it did not. When they verify the chain (signatures, dates, constraints against exactly the roots this
    ///   policy trusts, or against its pinned authorities), the chain may be only the leaf, and only the host and the
    ///   pins remain to be checked here.
    func evaluate(_ chain: [Data], forDomain domain: String?, verifiedBy tlsStack: TLSStackRequirements? = nil) async -> ServerTrustEvaluation {
        if domain != nil, allowInvalidCertificates, validatesDomainName, pinningMode == .none || !hasPins {
            return .rejected(
                reason: "refusing to validate a domain name on a certificate that may be invalid without pinning "
                    + "(allowInvalidCertificates and validatesDomainName need a pinning mode and pinned certificates)"
            )
        }
        let presented: [Certificate]
        switch Self.parse(chain) {
        case .success(let certificates): presented = certificates
        case .failure(let rejection): return rejection.evaluation
        }
        let host = validatesDomainName ? domain : nil
        if let tlsStack, !tlsStack.pinnedAnchors.isEmpty {
            return await evaluateChainAnchoredOnPins(presented, host: host, anchors: tlsStack.pinnedAnchors)
        }
        let chainVerifiedByTLSStack = tlsStack?.verifiesChain ?? false

        var validatedChain: [Certificate] = []
        if !allowInvalidCertificates {
            switch await validateAgainstTrustedRoots(presented, host: host, chainVerifiedByTLSStack: chainVerifiedByTLSStack) {
            case .success(let chain): validatedChain = chain
            case .failure(let rejection):
                // With the path verified by the TLS stack, only the host name was left to check.
                guard !chainVerifiedByTLSStack else { return rejection.evaluation }
                return .rejected(reason: "the certificate chain is not trusted by the system or the policy's trusted roots: \(rejection.reason)")
            }
        }

        switch pinningMode {
        case .none:
            return .trusted
        case .certificate:
            return await evaluateCertificatePins(presented, host: host)
        case .publicKey:
            return evaluatePublicKeyPins(presented + validatedChain)
        }
    }

    /// Whether the pinning mode has something to pin (public keys count in `.publicKey` mode only).
    private var hasPins: Bool {
        !pinnedCertificates.isEmpty || (pinningMode == .publicKey && !pinnedPublicKeys.isEmpty)
    }

    /// AFNetworking's first check in every mode: the chain leads to a trusted root (system or policy roots).
    private func validateAgainstTrustedRoots(
        _ presented: [Certificate],
        host: String?,
        chainVerifiedByTLSStack: Bool
    ) async -> Result<[Certificate], Rejection> {
        guard chainVerifiedByTLSStack, let leaf = presented.first else {
            let roots = systemTrustRoots.appending(contentsOf: Self.certificates(in: trustedRootCertificates))
            return await Self.validate(presented, roots: roots, host: host, pathAlreadyVerified: false, at: validationDate)
        }
        // The path is already verified: anchor the leaf itself so that only the host is checked.
        return await Self.validate([leaf], roots: CertificateStore([leaf]), host: host, pathAlreadyVerified: true, at: validationDate)
    }

    /// The TLS stack verified that the chain leads to one of the pinned authorities `anchors`, so a pin is met; left:
    /// the host name, and, unless invalid certificates are allowed, that the pinned authorities are trusted roots
    /// themselves (AFNetworking's first check; the handshake does not tell which of them the chain reached, so all).
    private func evaluateChainAnchoredOnPins(_ presented: [Certificate], host: String?, anchors: Set<Data>) async -> ServerTrustEvaluation {
        guard let leaf = presented.first else { return .rejected(reason: "the server presented no certificate") }
        if host != nil,
            case .failure(let rejection) = await Self.validate([leaf], roots: CertificateStore([leaf]), host: host, pathAlreadyVerified: true, at: validationDate)
        {
            return rejection.evaluation
        }
        guard !allowInvalidCertificates else { return .trusted }
        let roots = systemTrustRoots.appending(contentsOf: Self.certificates(in: trustedRootCertificates))
        for anchor in Self.certificates(in: anchors) {
            if case .failure(let rejection) = await Self.validate([anchor], roots: roots, host: nil, pathAlreadyVerified: false, at: validationDate) {
                return .rejected(
                    reason: "the pinned certificate authority \"\(anchor.subject)\" is not trusted by the system or the policy's "
                        + "trusted roots (\(rejection.reason)); add it to trustedRootCertificates or allow invalid certificates"
                )
            }
        }
        return .trusted
    }

    /// The pinned certificates are the only anchors; the chain must validate against them and include one of them.
    private func evaluateCertificatePins(_ presented: [Certificate], host: String?) async -> ServerTrustEvaluation {
        let pins = Self.certificates(in: pinnedCertificates)
        guard !pins.isEmpty else {
            return .rejected(reason: "certificate pinning is on but there is no pinned certificate")
        }
        switch await Self.validate(presented, roots: CertificateStore(pins), host: host, pathAlreadyVerified: false, at: validationDate) {
        case .failure(let rejection):
            return .rejected(reason: "the certificate chain does not validate against the pinned certificates: \(rejection.reason)")
        case .success(let chain):
            let pinSet = Set(pins)
            guard chain.contains(where: pinSet.contains) else {
                return .rejected(reason: "no certificate in the chain is one of the pinned certificates")
            }
            return .trusted
        }
    }

    /// A pinned public key (SubjectPublicKeyInfo) must be in the chain: the key of a certificate in `chain`, or the key
    /// that signed one of them (the issuer of the top certificate when the server did not send that issuer).
    private func evaluatePublicKeyPins(_ chain: [Certificate]) -> ServerTrustEvaluation {
        let keys = Self.certificates(in: pinnedCertificates).map(\.publicKey)
            + pinnedPublicKeys.flatMap { CertificateDecoding.publicKeys(fromDERorPEM: $0) }
        guard !keys.isEmpty else {
            return .rejected(reason: "public-key pinning is on but there is no pinned certificate")
        }
        let chainKeys = Set(chain.compactMap { try? CertificateDecoding.subjectPublicKeyInfo(of: $0) })
        let matchesAPin = keys.contains { key in
            guard let pinnedKey = try? CertificateDecoding.subjectPublicKeyInfo(of: key) else { return false }
            return chainKeys.contains(pinnedKey)
                || chain.contains { key.isValidSignature($0.signature, for: $0) }
        }
        guard matchesAPin else {
            return .rejected(reason: "no public key in the certificate chain matches a pinned public key")
        }
        return .trusted
    }

    // MARK: - Helpers

    /// A rule failure with its explanation.
    private struct Rejection: Error {
        var reason: String
        var evaluation: ServerTrustEvaluation { .rejected(reason: reason) }
    }

    private static func parse(_ chain: [Data]) -> Result<[Certificate], Rejection> {
        guard !chain.isEmpty else {
            return .failure(Rejection(reason: "the server presented no certificate"))
        }
        var certificates: [Certificate] = []
        for (index, der) in chain.enumerated() {
            do {
                certificates.append(try CertificateDecoding.certificate(fromDER: der))
            } catch {
                return .failure(Rejection(reason: "certificate \(index) of the chain is not a DER X.509 certificate (\(error))"))
            }
        }
        return .success(certificates)
    }

    /// Every certificate in `encoded` (DER or PEM); entries that are neither are ignored, which can only reject more.
    private static func certificates(in encoded: Set<Data>) -> [Certificate] {
        encoded.flatMap { CertificateDecoding.certificates(fromDERorPEM: $0) }
    }

    /// Builds a chain from `presented` (leaf first, then intermediates) to one of `roots`, checking signatures and,
    /// unless `pathAlreadyVerified`, validity dates, basic constraints and name constraints (RFC 5280); then the host
    /// when `host` is not nil.
    private static func validate(
        _ presented: [Certificate],
        roots: CertificateStore,
        host: String?,
        pathAlreadyVerified: Bool,
        at validationTime: Date?
    ) async -> Result<[Certificate], Rejection> {
        guard let leaf = presented.first else {
            return .failure(Rejection(reason: "the server presented no certificate"))
        }
        var verifier = Verifier(rootCertificates: roots) {
            PathValidationPolicy(pathAlreadyVerified: pathAlreadyVerified, validationTime: validationTime)
            if let host {
                HostIdentityPolicy(host: host)
            }
        }
        let result = await verifier.validate(leaf: leaf, intermediates: CertificateStore(presented.dropFirst()))
        switch result {
        case .validCertificate(let chain):
            return .success(Array(chain))
        case .couldNotValidate(let failures):
            var reasons: [String] = []
            for failure in failures where !reasons.contains(failure.policyFailureReason.description) {
                reasons.append(failure.policyFailureReason.description)
            }
            if reasons.isEmpty {
                return .failure(Rejection(reason: "no chain leads from the certificate to a trusted root (unknown issuer or invalid signature)"))
            }
            return .failure(Rejection(reason: reasons.joined(separator: "; ")))
        }
    }
}
