/// How a ``SecurityPolicy`` pins the server's certificate chain (AFNetworking's `AFSSLPinningMode`).
/// Codable as its case name (`"none"`, `"publicKey"`, `"certificate"`).
public enum SSLPinningMode: String, Sendable, Hashable, CaseIterable, Codable {
    /// No pinning: the chain must lead to a trusted root (the system's plus the policy's additional roots).
    case none
    /// The public key (SubjectPublicKeyInfo) of at least one certificate in the chain must equal that of a pinned certificate.
    case publicKey
    /// The pinned certificates are the only trust anchors; the chain must validate against them and contain one of them.
    case certificate
}
