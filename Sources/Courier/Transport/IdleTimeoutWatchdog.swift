import NIOCore
import Synchronization

/// Fails a request when no byte has moved for its timeout, the way `URLRequest.timeoutInterval`
/// works in URLSession.
///
/// Activity is recorded with a timestamp (no timer work per chunk); one check is scheduled at a
/// time and reschedules itself for the remaining interval. While the consumer holds backpressure
/// the watchdog is suspended: a paused reader is not an idle server.
final class IdleTimeoutWatchdog: Sendable {
    private struct State {
        var lastActivity: NIODeadline
        var suspended = false
        var finished = false
        var scheduled: Scheduled<Void>?
    }

    private let timeout: TimeAmount
    private let eventLoop: any EventLoop
    private let onTimeout: @Sendable () -> Void
    private let state: Mutex<State>

    /// Starts watching. `onTimeout` runs at most once, on `eventLoop`.
    init(timeout: TimeAmount, eventLoop: any EventLoop, onTimeout: @escaping @Sendable () -> Void) {
        self.timeout = timeout
        self.eventLoop = eventLoop
        self.onTimeout = onTimeout
        self.state = Mutex(State(lastActivity: .now()))
        schedule(at: .now() + timeout)
    }

    /// Records that bytes moved.
    func touch() {
        let now = NIODeadline.now()
        state.withLock { $0.lastActivity = now }
    }

    /// Suspends (`true`) or resumes (`false`) the timeout while the consumer applies backpressure.
    func setSuspended(_ suspended: Bool) {
        let now = NIODeadline.now()
        state.withLock {
            $0.suspended = suspended
            $0.lastActivity = now
        }
    }

    /// Stops watching for good.
    func finish() {
        let scheduled = state.withLock { state -> Scheduled<Void>? in
            state.finished = true
            defer { state.scheduled = nil }
            return state.scheduled
        }
        scheduled?.cancel()
    }

    private func schedule(at deadline: NIODeadline) {
        let task = eventLoop.scheduleTask(deadline: deadline) { [weak self] () -> Void in self?.check() }
        let stale = state.withLock { state -> Bool in
            if state.finished { return true }
            state.scheduled = task
            return false
        }
        if stale { task.cancel() }
    }

    private enum Decision {
        case stop
        case fire
        case recheck(NIODeadline)
    }

    private func check() {
        let now = NIODeadline.now()
        let decision: Decision = state.withLock { state in
            if state.finished { return .stop }
            if state.suspended { return .recheck(now + timeout) }
            let due = state.lastActivity + timeout
            guard due > now else {
                state.finished = true
                return .fire
            }
            return .recheck(due)
        }
        switch decision {
        case .stop: break
        case .fire: onTimeout()
        case .recheck(let deadline): schedule(at: deadline)
        }
    }
}
