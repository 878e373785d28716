import NIOCore
import Synchronization

/// Fails a request that waits too long for a connection, or that goes idle once it has one.
///
/// Two phases, because they are different failures:
/// - **Waiting for a connection.** The engine queues a request while every connection to its host
///   is busy; that wait is not idleness (nothing *could* move), so only the connection-wait limit
///   applies. It ends when the request head is written to a connection.
/// - **On a connection.** `URLRequest.timeoutInterval` semantics, as in URLSession: the request fails
///   when no byte has moved in either direction for the idle timeout.
///
/// Activity is recorded with a timestamp (no timer work per chunk); one check is scheduled at a
/// time and reschedules itself for the remaining interval. While the consumer holds backpressure
/// the idle timeout is suspended: a paused reader is not an idle server.
final class IdleTimeoutWatchdog: Sendable {
    /// Which limit ran out.
    enum Expiry: Sendable {
        /// The request waited longer than the connection-wait limit without being written.
        case connectionWait
        /// No byte moved for the idle timeout.
        case idle
    }

    private struct State {
        /// `true` until the request is on a connection.
        var waitingForConnection = true
        var waitDeadline: NIODeadline?
        var lastActivity: NIODeadline
        var suspended = false
        var finished = false
        var scheduled: NIOScheduledCallback?
    }

    private let idleTimeout: TimeAmount?
    private let eventLoop: any EventLoop
    private let onTimeout: @Sendable (Expiry) -> Void
    private let state: Mutex<State>

    /// Starts watching a request that is waiting for a connection. `onTimeout` runs at most once, on `eventLoop`.
    /// - Parameters:
    ///   - idleTimeout: The idle timeout once on a connection; `nil` for none.
    ///   - connectionWait: The most time to wait for a connection; `nil` for no limit.
    init(
        idleTimeout: TimeAmount?,
        connectionWait: TimeAmount?,
        eventLoop: any EventLoop,
        onTimeout: @escaping @Sendable (Expiry) -> Void
    ) {
        self.idleTimeout = idleTimeout
        self.eventLoop = eventLoop
        self.onTimeout = onTimeout
        let now = NIODeadline.now()
        self.state = Mutex(State(waitDeadline: connectionWait.map { now + $0 }, lastActivity: now))
        // One check at the earlier of the two limits serves both phases: a request on a connection by then is
        // rechecked for idleness from its last activity, so acquiring a connection needs no timer work.
        let first = [connectionWait, idleTimeout].compactMap { $0 }.min()
        if let first { schedule(at: now + first) }
    }

    /// The request head was written to a connection: from now on the idle timeout applies.
    func connectionAcquired() {
        let now = NIODeadline.now()
        state.withLock { state in
            guard state.waitingForConnection else { return }
            state.waitingForConnection = false
            state.lastActivity = now
        }
    }

    /// Records that bytes moved.
    func touch() {
        let now = NIODeadline.now()
        state.withLock { $0.lastActivity = now }
    }

    /// Suspends (`true`) or resumes (`false`) the idle timeout while the consumer applies backpressure.
    func setSuspended(_ suspended: Bool) {
        let now = NIODeadline.now()
        state.withLock {
            $0.suspended = suspended
            $0.lastActivity = now
        }
    }

    /// Stops watching for good.
    func finish() {
        let scheduled = state.withLock { state -> NIOScheduledCallback? in
            state.finished = true
            defer { state.scheduled = nil }
            return state.scheduled
        }
        scheduled?.cancel()
    }

    /// A scheduled callback rather than a scheduled task: no promise and no future per request (a few µs of every
    /// small request, and the heap entry is all the loop keeps).
    private func schedule(at deadline: NIODeadline) {
        // Only a loop that is shutting down refuses; nothing is left to watch then.
        guard let task = try? eventLoop.scheduleCallback(at: deadline, handler: Check(watchdog: self)) else { return }
        let stale = state.withLock { state -> Bool in
            if state.finished { return true }
            state.scheduled = task
            return false
        }
        if stale { task.cancel() }
    }

    /// Runs the check unless the watchdog is gone (the loop holds this until the deadline; the watchdog is not kept
    /// alive by it).
    private struct Check: NIOScheduledCallbackHandler, Sendable {
        weak var watchdog: IdleTimeoutWatchdog?

        func handleScheduledCallback(eventLoop: some EventLoop) {
            watchdog?.check()
        }
    }

    private enum Decision {
        case stop
        case fire(Expiry)
        case recheck(NIODeadline)
    }

    private func check() {
        let now = NIODeadline.now()
        let idleTimeout = self.idleTimeout
        let decision: Decision = state.withLock { state in
            if state.finished { return .stop }
            if state.waitingForConnection {
                guard let deadline = state.waitDeadline else {
                    // No wait limit: look again one idle timeout later (the request may be on a connection by then).
                    return idleTimeout.map { .recheck(now + $0) } ?? .stop
                }
                guard deadline > now else {
                    state.finished = true
                    return .fire(.connectionWait)
                }
                // Never further away than one idle timeout, so idleness after the wait is seen in time.
                return .recheck(idleTimeout.map { min(deadline, now + $0) } ?? deadline)
            }
            guard let idleTimeout else { return .stop }
            if state.suspended { return .recheck(now + idleTimeout) }
            let due = state.lastActivity + idleTimeout
            guard due > now else {
                state.finished = true
                return .fire(.idle)
            }
            return .recheck(due)
        }
        switch decision {
        case .stop: break
        case .fire(let expiry): onTimeout(expiry)
        case .recheck(let deadline): schedule(at: deadline)
        }
    }
}
