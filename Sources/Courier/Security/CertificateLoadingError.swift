import Foundation

/// Why certificates could not be loaded from a file or a directory.
public enum CertificateLoadingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file or directory at `url` could not be read; `underlying` is the system's explanation.
    case unreadable(url: URL, underlying: String)
    /// The file at `url` holds neither a DER certificate nor a PEM document with at least one `CERTIFICATE` block.
    case notACertificate(url: URL)
    /// The file at `url` holds neither a DER SubjectPublicKeyInfo nor a PEM document with a `PUBLIC KEY` block.
    case notAPublicKey(url: URL)

    /// A human-readable explanation naming the file.
    public var description: String {
        switch self {
        case .unreadable(let url, let underlying):
            return "cannot read \(url.path): \(underlying)"
        case .notACertificate(let url):
            return "\(url.path) holds no DER or PEM X.509 certificate"
        case .notAPublicKey(let url):
            return "\(url.path) holds no DER or PEM public key"
        }
    }
}
