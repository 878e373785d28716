import NIOCore
import Synchronization

/// Checks the time limits of every request a transport has in flight from one callback on one event loop, repeated
/// while any request is watched (see ``IdleTimeoutWatchdog`` for the limits themselves).
///
/// Why not a timer per request: scheduling a callback on a NIO event loop from another thread wakes the loop (an
/// eventfd write and a context switch), and so does cancelling it; a timer per request cost a small GET two wake-ups
/// and 12–25 µs of CPU (measured with `bench-client` at concurrency 1, against 230 µs for the whole request on raw
/// AsyncHTTPClient). Here a request takes a lock to join and one to leave; the loop wakes once per tick while
/// requests are watched, and not at all when none is.
///
/// A tick comes at most ``IdleTimeoutWatchdog/tick`` after the previous one for every watched request (1/32 of its
/// shortest limit, between 1 ms and 250 ms), so a limit is noticed at most that late.
final class TimeoutSweeper: Sendable {
    private struct Entry {
        let watchdog: IdleTimeoutWatchdog
        let onTimeout: @Sendable (IdleTimeoutWatchdog.Expiry) -> Void
    }

    private struct State {
        var entries: [ObjectIdentifier: Entry] = [:]
        /// When the next sweep is due, while one is scheduled. A scheduled callback for another time was superseded
        /// by a sooner one and does nothing when it comes.
        var nextTick: NIODeadline?
    }

    private let eventLoop: any EventLoop
    private let state = Mutex(State())

    /// A sweeper whose checks run on `eventLoop`.
    init(eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    /// Watches `watchdog` until it finishes or a limit runs out; then `onTimeout` runs once, on the sweeper's loop.
    func add(_ watchdog: IdleTimeoutWatchdog, onTimeout: @escaping @Sendable (IdleTimeoutWatchdog.Expiry) -> Void) {
        let due = NIODeadline.now() + watchdog.tick
        let mustSchedule = state.withLock { state -> Bool in
            state.entries[ObjectIdentifier(watchdog)] = Entry(watchdog: watchdog, onTimeout: onTimeout)
            if let next = state.nextTick, next <= due { return false }
            state.nextTick = due
            return true
        }
        // From another thread this wakes the loop: only when no sweep is due soon enough already.
        if mustSchedule { schedule(at: due) }
    }

    /// Stops watching `watchdog`.
    func remove(_ watchdog: IdleTimeoutWatchdog) {
        state.withLock { _ = $0.entries.removeValue(forKey: ObjectIdentifier(watchdog)) }
    }

    /// How many requests are watched (for tests).
    var count: Int { state.withLock { $0.entries.count } }

    private func schedule(at deadline: NIODeadline) {
        // Only a loop that is shutting down refuses; the requests it carried end with it.
        _ = try? eventLoop.scheduleCallback(at: deadline, handler: Tick(sweeper: self, deadline: deadline))
    }

    /// Runs the sweep that was due at `deadline`, unless a sooner one replaced it.
    private struct Tick: NIOScheduledCallbackHandler, Sendable {
        let sweeper: TimeoutSweeper
        let deadline: NIODeadline

        func handleScheduledCallback(eventLoop: some EventLoop) {
            sweeper.sweep(dueAt: deadline)
        }
    }

    private func sweep(dueAt deadline: NIODeadline) {
        let entries: [(ObjectIdentifier, Entry)]? = state.withLock { state in
            guard state.nextTick == deadline else { return nil }
            state.nextTick = nil
            return state.entries.map { ($0.key, $0.value) }
        }
        guard let entries else { return }
        // The checks take each watchdog's own lock: outside the sweeper's, so that requests join and leave meanwhile.
        let now = NIODeadline.now()
        var ended: [ObjectIdentifier] = []
        var expired: [(Entry, IdleTimeoutWatchdog.Expiry)] = []
        var tick = IdleTimeoutWatchdog.longestTick
        for (key, entry) in entries {
            switch entry.watchdog.check(now: now) {
            case .watching:
                tick = min(tick, entry.watchdog.tick)
            case .ended:
                ended.append(key)
            case .expired(let expiry):
                ended.append(key)
                expired.append((entry, expiry))
            }
        }
        let due = now + tick
        let mustSchedule = state.withLock { state -> Bool in
            for key in ended { state.entries.removeValue(forKey: key) }
            guard !state.entries.isEmpty else { return false }
            // A request that joined during the checks may have scheduled a sooner sweep already.
            if let next = state.nextTick, next <= due { return false }
            state.nextTick = due
            return true
        }
        // On the loop itself: no wake-up.
        if mustSchedule { schedule(at: due) }
        for (entry, expiry) in expired { entry.onTimeout(expiry) }
    }
}
