import Foundation
import NIOSSL

/// What the TLS stack (SwiftNIO SSL) must verify during the handshake for a ``SecurityPolicy``; Courier checks the rest.
///
/// The TLS stack performs AFNetworking's first check, "the chain leads to a trusted root": signatures, validity dates
/// and constraints against the system's roots plus the policy's ``SecurityPolicy/trustedRootCertificates``. Host names
/// (SAN only, never the common name) and pins are checked by Courier on the peer certificate afterwards (see
/// ``TLSHandshakeEvaluation``). Two policies with equal requirements can share a TLS configuration, never a verdict.
public struct TLSStackRequirements: Sendable, Hashable {
    /// Whether the TLS stack verifies the chain; false when the policy allows invalid certificates.
    public let verifiesChain: Bool
    /// Extra trust anchors for the TLS stack, DER-encoded; empty when ``verifiesChain`` is false.
    public let additionalTrustRoots: Set<Data>

    /// Requirements for `verifiesChain` with `additionalTrustRoots` (DER; entries that are not certificates are dropped).
    public init(verifiesChain: Bool, additionalTrustRoots: Set<Data>) {
        self.verifiesChain = verifiesChain
        self.additionalTrustRoots =
            verifiesChain
            ? Set(additionalTrustRoots.flatMap { CertificateDecoding.certificates(fromDERorPEM: $0) }.compactMap { try? CertificateDecoding.derBytes(of: $0) })
            : []
    }

    /// `base` with the certificate verification these requirements call for: `.noHostnameVerification` against the
    /// system roots plus ``additionalTrustRoots``, or `.none`. Host names are left to Courier because SwiftNIO SSL
    /// falls back to the common name when a certificate has no SAN.
    /// - Parameter base: the configuration to adjust; defaults to `TLSConfiguration.makeClientConfiguration()`.
    /// - Throws: SwiftNIO SSL's error if a trust root cannot be loaded.
    public func makeTLSConfiguration(base: TLSConfiguration = .makeClientConfiguration()) throws -> TLSConfiguration {
        var configuration = base
        guard verifiesChain else {
            configuration.certificateVerification = .none
            return configuration
        }
        configuration.certificateVerification = .noHostnameVerification
        configuration.trustRoots = .default
        if !additionalTrustRoots.isEmpty {
            let certificates = try additionalTrustRoots.sorted { $0.lexicographicallyPrecedes($1) }.map {
                try NIOSSLCertificate(bytes: Array($0), format: .der)
            }
            configuration.additionalTrustRoots = [.certificates(certificates)]
        }
        return configuration
    }
}
