/// The platform part of a ``NetworkReachabilityManager``: watches the system and reports a
/// status after every relevant change. `start` and `stop` are idempotent; after `stop` returns
/// (when not called from the report callback itself) no further report is made.
protocol ReachabilityMonitor: Sendable {
    func start(reporting report: @escaping @Sendable (NetworkReachabilityStatus) -> Void)
    func stop()
}
