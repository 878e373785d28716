import Foundation
import NIOSSL

/// What the TLS stack (SwiftNIO SSL) must verify during the handshake for a ``SecurityPolicy``; Courier checks the rest.
///
/// The TLS stack performs AFNetworking's first check, "the chain leads to a trusted root": signatures, validity dates
/// and constraints against the system's roots plus the policy's ``SecurityPolicy/trustedRootCertificates``. Host names
/// (SAN only, never the common name) and pins are checked by Courier on the peer certificate afterwards (see
/// `TLSHandshakeEvaluation`). Two policies with equal requirements can share a TLS configuration, never a verdict.
///
/// When the policy pins a certificate authority's own certificate (a self-signed CA, such as a root), the TLS stack
/// trusts only the pinned authorities (``pinnedAnchors``): a completed handshake then proves that the chain the server
/// sent leads to one of them. That is how a pin on a root above intermediates is honoured, as AFNetworking anchors
/// the evaluation on its pinned certificates, although the engine hands Courier only the leaf after the handshake.
public struct TLSStackRequirements: Sendable, Hashable {
    /// Whether the TLS stack verifies the chain; false when the policy allows invalid certificates (and pins no
    /// certificate authority).
    public let verifiesChain: Bool
    /// Extra trust anchors for the TLS stack, DER-encoded; empty when ``verifiesChain`` is false or when
    /// ``pinnedAnchors`` replace every root.
    public let additionalTrustRoots: Set<Data>
    /// Pinned self-signed certificate authorities, DER-encoded: when not empty, the TLS stack's only trust anchors.
    /// Default: empty.
    public let pinnedAnchors: Set<Data>

    /// Requirements for `verifiesChain` with `additionalTrustRoots` (DER; entries that are not certificates are dropped).
    public init(verifiesChain: Bool, additionalTrustRoots: Set<Data>) {
        self.verifiesChain = verifiesChain
        self.additionalTrustRoots = verifiesChain ? Self.derCertificates(in: additionalTrustRoots) : []
        self.pinnedAnchors = []
    }

    /// Requirements that verify the chain against `pinnedAnchors` only (DER or PEM; entries that are not
    /// certificates are dropped). With no certificate left, the same as verifying against no root at all.
    public init(pinnedAnchors: Set<Data>) {
        self.verifiesChain = true
        self.additionalTrustRoots = []
        self.pinnedAnchors = Self.derCertificates(in: pinnedAnchors)
    }

    private static func derCertificates(in encoded: Set<Data>) -> Set<Data> {
        Set(encoded.flatMap { CertificateDecoding.certificates(fromDERorPEM: $0) }.compactMap { try? CertificateDecoding.derBytes(of: $0) })
    }

    /// `base` with the certificate verification these requirements call for: `.noHostnameVerification` against the
    /// system roots plus ``additionalTrustRoots`` (or against ``pinnedAnchors`` alone), or `.none`. Host names are left
    /// to Courier because SwiftNIO SSL falls back to the common name when a certificate has no SAN.
    /// - Parameter base: the configuration to adjust; defaults to `TLSConfiguration.makeClientConfiguration()`.
    /// - Throws: SwiftNIO SSL's error if a trust root cannot be loaded.
    public func makeTLSConfiguration(base: TLSConfiguration = .makeClientConfiguration()) throws -> TLSConfiguration {
        var configuration = base
        guard verifiesChain else {
            configuration.certificateVerification = .none
            return configuration
        }
        configuration.certificateVerification = .noHostnameVerification
        if !pinnedAnchors.isEmpty {
            configuration.trustRoots = .certificates(try Self.nioCertificates(pinnedAnchors))
            configuration.additionalTrustRoots = []
            return configuration
        }
        configuration.trustRoots = SystemTrustRoots.roots
        if !additionalTrustRoots.isEmpty {
            configuration.additionalTrustRoots = [.certificates(try Self.nioCertificates(additionalTrustRoots))]
        }
        return configuration
    }

    private static func nioCertificates(_ der: Set<Data>) throws -> [NIOSSLCertificate] {
        try der.sorted { $0.lexicographicallyPrecedes($1) }.map { try NIOSSLCertificate(bytes: Array($0), format: .der) }
    }
}
