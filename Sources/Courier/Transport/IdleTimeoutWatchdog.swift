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
/// Activity is recorded with a timestamp (no timer work per chunk), and the watchdog has no timer of its own: a
/// ``TimeoutSweeper`` checks it every ``tick`` while it watches. While the consumer holds backpressure the idle
/// timeout is suspended: a paused reader is not an idle server.
final class IdleTimeoutWatchdog: Sendable {
    /// Which limit ran out.
    enum Expiry: Sendable {
        /// The request waited longer than the connection-wait limit without being written.
        case connectionWait
        /// No byte moved for the idle timeout.
        case idle
    }

    /// What a check found.
    enum Verdict: Sendable {
        /// Within its limits: check again.
        case watching
        /// Finished, or nothing left to watch.
        case ended
        /// A limit ran out (the watchdog has finished).
        case expired(Expiry)
    }

    /// The longest time between two checks, whatever the limits.
    static let longestTick = TimeAmount.milliseconds(250)
    /// The shortest time between two checks, whatever the limits.
    static let shortestTick = TimeAmount.milliseconds(1)

    private struct State {
        /// `true` until the request is on a connection.
        var waitingForConnection = true
        var waitDeadline: NIODeadline?
        var lastActivity: NIODeadline
        var suspended = false
        var finished = false
    }

    private let idleTimeout: TimeAmount?
    private let sweeper: TimeoutSweeper
    private let state: Mutex<State>
    /// The time between two checks: 1/32 of the shorter limit, between ``shortestTick`` and ``longestTick``, so that
    /// a limit runs out at most about 3 % late.
    let tick: TimeAmount

    /// Starts the clocks of a request that is waiting for a connection; ``start(onTimeout:)`` has it checked.
    /// - Parameters:
    ///   - idleTimeout: The idle timeout once on a connection; `nil` for none.
    ///   - connectionWait: The most time to wait for a connection; `nil` for no limit.
    ///   - sweeper: What checks it.
    init(idleTimeout: TimeAmount?, connectionWait: TimeAmount?, sweeper: TimeoutSweeper) {
        self.idleTimeout = idleTimeout
        self.sweeper = sweeper
        let now = NIODeadline.now()
        self.state = Mutex(State(waitDeadline: connectionWait.map { now + $0 }, lastActivity: now))
        let shorter = [connectionWait, idleTimeout].compactMap { $0 }.min() ?? Self.longestTick
        tick = min(max(TimeAmount.nanoseconds(shorter.nanoseconds / 32), Self.shortestTick), Self.longestTick)
    }

    /// Has the sweeper check this watchdog until it finishes; `onTimeout` runs at most once, on the sweeper's loop.
    func start(onTimeout: @escaping @Sendable (Expiry) -> Void) {
        // A watchdog finished before it started is not watched; one that finishes from here on leaves the sweeper
        // itself (or, racing this, at the next sweep, which finds it ended).
        guard !state.withLock({ $0.finished }) else { return }
        sweeper.add(self, onTimeout: onTimeout)
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
        let wasWatching = state.withLock { state -> Bool in
            defer { state.finished = true }
            return !state.finished
        }
        if wasWatching { sweeper.remove(self) }
    }

    /// Whether a limit has run out at `now` (called by the sweeper).
    func check(now: NIODeadline) -> Verdict {
        let idleTimeout = self.idleTimeout
        return state.withLock { state in
            if state.finished { return .ended }
            if state.waitingForConnection {
                guard let deadline = state.waitDeadline, deadline <= now else { return .watching }
                state.finished = true
                return .expired(.connectionWait)
            }
            // On a connection without an idle timeout nothing is left to watch.
            guard let idleTimeout else { return .ended }
            if state.suspended || state.lastActivity + idleTimeout > now { return .watching }
            state.finished = true
            return .expired(.idle)
        }
    }
}
