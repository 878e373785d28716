/// The verdict of a ``SecurityPolicy`` on a server's certificate chain.
public enum ServerTrustEvaluation: Sendable, Hashable, CustomStringConvertible {
    /// The chain satisfies the policy: the connection may proceed.
    case trusted
    /// The chain does not satisfy the policy; `reason` says which rule failed, in words meant for an error message.
    case rejected(reason: String)

    /// Whether the chain satisfies the policy.
    public var isTrusted: Bool {
        if case .trusted = self { return true }
        return false
    }

    /// Why the chain was rejected; nil when it is trusted.
    public var failureReason: String? {
        if case .rejected(let reason) = self { return reason }
        return nil
    }

    /// "trusted", or "rejected: " followed by the reason.
    public var description: String {
        switch self {
        case .trusted: return "trusted"
        case .rejected(let reason): return "rejected: \(reason)"
        }
    }
}
