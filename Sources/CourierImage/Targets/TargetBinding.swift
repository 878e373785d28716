import Synchronization

/// A task or operation driving a target (``ProgressTarget``, ``ActivityTarget``) until the task ends or ``cancel()``
/// is called. Dropping the binding does not end it: it ends with the task, as AFNetworking's categories do.
public final class TargetBinding: Sendable {
    private let ending = Mutex<(@Sendable () -> Void)?>(nil)
    private let ended = Atomic<Bool>(false)

    init() {}

    /// Sets what ends the binding; runs it at once if the binding was cancelled before.
    func onCancel(_ end: @escaping @Sendable () -> Void) {
        let runNow = ending.withLock { ending -> Bool in
            guard !ended.load(ordering: .acquiring) else { return true }
            ending = end
            return false
        }
        if runNow { end() }
    }

    /// Whether the binding was cancelled: the target is no longer updated.
    public var isCancelled: Bool { ended.load(ordering: .acquiring) }

    /// Stops updating the target. The task goes on.
    public func cancel() {
        let end = ending.withLock { ending -> (@Sendable () -> Void)? in
            ended.store(true, ordering: .releasing)
            defer { ending = nil }
            return ending
        }
        end?()
    }
}
