import Foundation

/// A server's certificates on a new TLS connection and the security policy's verdict on them: what a server-trust
/// challenge presents (AFNetworking's `NSURLAuthenticationMethodServerTrust` challenges, decided by the session's or
/// operation's challenge blocks with the policy's verdict as the default).
public struct ServerTrust: Sendable {
    /// The host connected to, as in the request's URL.
    public let host: String
    /// The port connected to.
    public let port: Int
    /// The server's certificates, DER, leaf first. AsyncHTTPClient hands over the leaf only, so this is the leaf.
    public let certificateChain: [Data]
    /// What the security policy decided; `.performDefaultHandling` applies it.
    public let evaluation: ServerTrustEvaluation

    /// A server trust for `host`:`port` with its chain and the policy's verdict.
    public init(host: String, port: Int, certificateChain: [Data], evaluation: ServerTrustEvaluation) {
        self.host = host
        self.port = port
        self.certificateChain = certificateChain
        self.evaluation = evaluation
    }
}

/// What a transport-level server-trust handler decides on a new connection (see
/// ``TransportRequest/serverTrustHandler``).
public enum ServerTrustDecision: Sendable, Hashable {
    /// Use the connection, whatever the policy's host-name and pin checks said. (A chain the TLS stack itself
    /// refused never reaches a handler: the handshake has failed by then.)
    case accept
    /// Refuse the connection, whatever the policy said: the request fails with `URLError(.serverCertificateUntrusted)`.
    case reject
    /// Apply the security policy's verdict.
    case performDefaultHandling
    /// Refuse the connection and fail the request with `URLError(.cancelled)`.
    case cancel
}
