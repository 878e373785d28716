/// The monitor of platforms with neither netlink nor SystemConfiguration: it never reports, so
/// the status stays ``NetworkReachabilityStatus/unknown``.
struct UnavailableReachabilityMonitor: ReachabilityMonitor {
    func start(reporting report: @escaping @Sendable (NetworkReachabilityStatus) -> Void) {}
    func stop() {}
}
