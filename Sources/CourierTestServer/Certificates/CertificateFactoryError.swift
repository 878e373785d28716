/// Why the test certificate factory refused to build a certificate.
public enum CertificateFactoryError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A string passed as an IP address SAN is neither a dotted IPv4 address nor an IPv6 address.
    case invalidIPAddress(String)

    /// A human-readable explanation.
    public var description: String {
        switch self {
        case .invalidIPAddress(let text):
            return "'\(text)' is not an IPv4 or IPv6 address"
        }
    }
}
