import Synchronization

/// Lets whoever owns a request cancel it from outside the task that awaits it.
///
/// A request running in its caller's task is cancelled by cancelling that task. AFNetworking's objects are also
/// cancelled from elsewhere (`operation.cancel()`, `task.cancel()`, a session's invalidation) while another task
/// awaits the response head; no Swift API cancels a task one does not own, so the exchange hands its transport this
/// handle in ``TransportRequest/cancellation`` and the transport registers how to abort the request in flight.
///
/// One handle serves every hop of an exchange: a newer ``onCancel(_:)`` replaces the previous hop's handler.
public final class TransportCancellation: Sendable {
    private enum State {
        case active((@Sendable () -> Void)?)
        case cancelled
    }

    private let state = Mutex(State.active(nil))

    /// Creates a handle that is not cancelled.
    public init() {}

    /// Whether ``cancel()`` was called.
    public var isCancelled: Bool {
        state.withLock { if case .cancelled = $0 { true } else { false } }
    }

    /// Registers how to abort the request now in flight, replacing an earlier handler. After ``cancel()`` the
    /// handler runs at once, on the calling thread.
    public func onCancel(_ handler: @escaping @Sendable () -> Void) {
        let runNow = state.withLock { state -> Bool in
            guard case .active = state else { return true }
            state = .active(handler)
            return false
        }
        if runNow { handler() }
    }

    /// Runs the registered handler (once) and every handler registered later.
    public func cancel() {
        let handler = state.withLock { state -> (@Sendable () -> Void)? in
            guard case .active(let handler) = state else { return nil }
            state = .cancelled
            return handler
        }
        handler?()
    }
}
