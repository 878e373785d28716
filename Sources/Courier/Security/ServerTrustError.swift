import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A server's certificate chain was rejected by a ``SecurityPolicy`` during the TLS handshake.
public struct ServerTrustError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The host the connection was for, when known.
    public let domain: String?
    /// Which rule of the policy failed (``ServerTrustEvaluation/failureReason``).
    public let reason: String

    /// An error for `domain` with the policy's `reason`.
    public init(domain: String?, reason: String) {
        self.domain = domain
        self.reason = reason
    }

    /// "The certificate for <domain> is not trusted: <reason>".
    public var description: String {
        "The certificate for \(domain ?? "the server") is not trusted: \(reason)"
    }

    /// The error a URLSession user expects: `URLError(.serverCertificateUntrusted)` with ``description`` as its message.
    public var urlError: URLError {
        URLError(.serverCertificateUntrusted, userInfo: [NSLocalizedDescriptionKey: description])
    }
}
