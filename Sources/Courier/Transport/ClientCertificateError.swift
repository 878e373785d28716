import Foundation

/// Why a ``ClientCertificate`` could not be loaded from its PEM files.
public enum ClientCertificateError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file at `path` could not be read; `underlying` is the system's explanation.
    case unreadable(path: String, underlying: String)
    /// The file at `path` holds no PEM `CERTIFICATE` block, or one that is not a valid X.509 certificate.
    case noCertificate(path: String, underlying: String)
    /// The file at `path` holds no PEM private key the TLS stack can use (unencrypted PKCS#8, PKCS#1 or SEC 1).
    case invalidPrivateKey(path: String, underlying: String)
    /// The private key at `keyPath` does not belong to the first certificate of the chain at `certificatePath`.
    case keyDoesNotMatchCertificate(certificatePath: String, keyPath: String)

    /// A human-readable explanation naming the file.
    public var description: String {
        switch self {
        case .unreadable(let path, let underlying):
            return "cannot read \(path): \(underlying)"
        case .noCertificate(let path, let underlying):
            return "\(path) holds no PEM X.509 certificate (\(underlying))"
        case .invalidPrivateKey(let path, let underlying):
            return "\(path) holds no usable PEM private key (\(underlying))"
        case .keyDoesNotMatchCertificate(let certificatePath, let keyPath):
            return "the private key in \(keyPath) does not match the certificate in \(certificatePath)"
        }
    }
}
