import Foundation

/// Why a transport that sends through an `HTTPClient` your application owns
/// (``EngineTransport/init(sharing:configuration:)``) refused a request: it needs a feature only a client
/// Courier configures itself can give, as the client's TLS and proxy settings are fixed when it is made.
public enum SharedClientError: Error, Sendable, Equatable, LocalizedError {
    /// The request's host has a security policy other than the default (pinning, own trust roots, invalid
    /// certificates allowed, no host-name check or a validation date): Courier enforces a policy in the TLS handshake
    /// of connections it makes itself.
    case securityPolicyNeedsOwnClient(host: String)
    /// The configuration routes the request through a proxy.
    case proxyNeedsOwnClient(proxy: String)
    /// The configuration sends over a Unix domain socket.
    case unixSocketNeedsOwnClient(path: String)
    /// The configuration presents a client certificate.
    case clientCertificateNeedsOwnClient

    public var errorDescription: String? {
        let feature: String = switch self {
        case .securityPolicyNeedsOwnClient(let host): "enforce the security policy set for \(host)"
        case .proxyNeedsOwnClient(let proxy): "send through the proxy \(proxy)"
        case .unixSocketNeedsOwnClient(let path): "connect to the Unix socket \(path)"
        case .clientCertificateNeedsOwnClient: "present the configured client certificate"
        }
        return "The transport sends through an HTTPClient your application owns, which cannot \(feature): "
            + "use an EngineTransport with its own connection pools (EngineTransport(configuration:)) "
            + "for such requests."
    }
}
