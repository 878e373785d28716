/// What a ``NetworkReachabilityManager`` watches.
enum ReachabilityTarget: Sendable, Hashable {
    /// A host name, resolved to its addresses at every evaluation.
    case domain(String)
    /// One address. The unspecified addresses (`0.0.0.0`, `::`) mean "the network in general".
    case address(ReachabilityAddress)
    /// The network in general over either IP version (what ``NetworkReachabilityManager/shared`` watches).
    case anyNetwork
}
