import Foundation
import Synchronization

/// Drives one façade request — a ``SessionTask`` or a ``URLConnectionOperation`` — through its exchanges: the one
/// place that decides when an attempt starts, pauses, is cancelled and completes, keeps the request's progress and
/// its waiters, and counts its retries.
///
/// The façade keeps what is its own (URLSession's delegate blocks and completion handlers, the operation's KVO and
/// blocks) and makes each attempt's ``Exchange``; the driver owns the rest. Its decisions come from a pure
/// ``DriverStateMachine``; this class performs the machine's actions on the exchange and hands the façade the
/// ones only it can perform (`startAttempt`, `completeCancelled`). All state is behind one `Mutex`, and every
/// effect (on the exchange, a listener, a waiter) runs outside it; as it calls nothing while holding it, a façade may
/// ask it whether an attempt counts while holding its own lock (the façade's lock first, never the other way).
final class ExchangeDriver: Sendable {
    private struct State: Sendable {
        var machine: DriverStateMachine
        /// The latest attempt's exchange, once made; kept after the request completes (metrics, the last request).
        var exchange: Exchange?
        /// The attempt ``exchange`` belongs to.
        var exchangeAttempt = 0
        /// The exchange a restart-mode pause stopped, with its attempt, until the façade has taken the bytes it kept
        /// (``releaseStopped(attempt:)``).
        var stopped: (attempt: Int, exchange: Exchange)?
        /// The task running the latest attempt, when the driver launched it.
        var runner: Task<Void, Never>?
        var relay = ProgressRelay()
        var waiters: [CheckedContinuation<Void, Never>] = []
        var retryCount = 0
        var startedAt: Date?
    }

    private let state: Mutex<State>
    private let pauseMode: DriverPauseMode

    /// - Parameter pauseMode: How ``pause()`` stops the request.
    init(pauseMode: DriverPauseMode) {
        self.pauseMode = pauseMode
        state = Mutex(State(machine: DriverStateMachine(pauseMode: pauseMode)))
    }

    // MARK: Reading

    var phase: DriverPhase { state.withLock { $0.machine.phase } }
    /// Whether an attempt was ever started.
    var hasStarted: Bool { state.withLock { $0.machine.hasStarted } }
    /// The latest attempt's exchange, once made.
    var exchange: Exchange? { state.withLock { $0.exchange } }
    /// The exchange of the live attempt: `nil` before it is made, once a pause stopped it, and once the request
    /// completed.
    var liveExchange: Exchange? {
        state.withLock { $0.machine.counts(attempt: $0.exchangeAttempt) ? $0.exchange : nil }
    }
    /// The latest attempt a restart-mode pause stopped, and its exchange; `nil` when none was made before the pause.
    var stoppedAttempt: (attempt: Int, exchange: Exchange)? { state.withLock { $0.stopped } }

    /// Lets go of attempt `n`'s stopped exchange once the façade has taken its bytes (a later pause's is kept).
    func releaseStopped(attempt n: Int) {
        state.withLock { state in
            if state.stopped?.attempt == n { state.stopped = nil }
        }
    }
    /// When the first attempt started; `nil` before.
    var startedAt: Date? { state.withLock { $0.startedAt } }
    /// The newest request-body progress.
    var sent: TransferProgress { state.withLock { $0.relay.sent } }
    /// The newest response-body progress.
    var received: TransferProgress { state.withLock { $0.relay.received } }
    /// How many times an interceptor's retry decision sent the request again.
    var retryCount: Int { state.withLock { $0.retryCount } }

    /// Counts a retry about to happen.
    func recordRetry() {
        state.withLock { $0.retryCount += 1 }
    }

    /// Whether attempt `n`'s outcome completes the request (it is the current attempt, not stopped by a pause).
    func counts(attempt n: Int) -> Bool {
        state.withLock { $0.machine.counts(attempt: n) }
    }

    // MARK: Caller's events

    /// Starts the request, or continues it after a pause. Performs the exchange's part itself; returns the action
    /// so that the façade starts the attempt (`startAttempt`) and posts its notification.
    func resume() -> DriverStateMachine.Action {
        perform(event: { $0.resume() })
    }

    /// Starts the request only if it never started: for a caller that runs the attempt in its own task.
    /// Returns the attempt to run, or `nil`.
    func start() -> Int? {
        if case .startAttempt(let n) = perform(event: { $0.start() }) { return n }
        return nil
    }

    /// Pauses a running request (holding or stopping its exchange); returns the action.
    func pause() -> DriverStateMachine.Action {
        perform(event: { $0.pause() })
    }

    /// Cancels the request; returns the action. On `completeCancelled` the façade completes the request itself.
    func cancel() -> DriverStateMachine.Action {
        perform(event: { $0.cancel() })
    }

    private func perform(event: (inout DriverStateMachine) -> DriverStateMachine.Action) -> DriverStateMachine.Action {
        let now = Date()
        let (action, exchange, runner) = state.withLock { state in
            let action = event(&state.machine)
            switch action {
            case .startAttempt:
                if state.startedAt == nil { state.startedAt = now }
            case .stopAttempt:
                if let exchange = state.exchange, state.exchangeAttempt == state.machine.attempt {
                    state.stopped = (state.exchangeAttempt, exchange)
                }
            default:
                break
            }
            return (action, state.exchange, state.runner)
        }
        switch action {
        case .pauseExchange:
            exchange?.pause()
        case .resumeExchange:
            exchange?.resume()
        case .cancelAttempt:
            exchange?.cancel()
            // An operation's task ends with its exchange: cancelling it also wakes a wait on something else (a body
            // write). A session task's runner still has its completion to deliver, which cancellation must not cut.
            if pauseMode == .restart { runner?.cancel() }
        case .stopAttempt:
            exchange?.cancel()
            // Also wakes the attempt's task where it waits on something other than the exchange (a body write).
            runner?.cancel()
        case .none, .startAttempt, .completeCancelled:
            break
        }
        return action
    }

    // MARK: Attempts

    /// Runs `body` for attempt `n` in a new task, once the previous attempt's task has ended (so that it has let go
    /// of the output). The task is kept as the attempt's runner unless a newer attempt started meanwhile.
    func launch(attempt n: Int, _ body: @escaping @Sendable (Int) async -> Void) {
        let previous = state.withLock { $0.runner }
        let runner = Task {
            await previous?.value
            await body(n)
        }
        state.withLock { state in
            if state.machine.attempt == n { state.runner = runner }
        }
    }

    /// Adopts attempt `n`'s exchange, now made, applying a pause or cancel that came before it existed. Returns
    /// `false` when the attempt is no longer current: the façade drops the exchange unstarted.
    func register(_ exchange: Exchange, attempt n: Int) -> Bool {
        let registration = state.withLock { state in
            let registration = state.machine.register(attempt: n)
            if registration != .discard {
                state.exchange = exchange
                state.exchangeAttempt = n
            }
            return registration
        }
        switch registration {
        case .discard: return false
        case .run: break
        case .runPaused: exchange.pause()
        case .runCancelled: exchange.cancel()
        }
        return true
    }

    /// Completes the request once: the phase becomes finished, `outcome` runs (the façade records its response and
    /// error, so that a progress stream's reader finds them when its stream ends), then the progress streams end.
    /// Returns `false`, running nothing, when it had completed already. The façade then delivers its completion and
    /// calls ``releaseWaiters()``.
    func complete(recording outcome: () -> Void = {}) -> Bool {
        let completed = state.withLock { state -> Bool in
            guard state.machine.complete() else { return false }
            state.runner = nil
            return true
        }
        guard completed else { return false }
        outcome()
        let ended = state.withLock { $0.relay.end() }
        for listener in ended { listener.end?() }
        return true
    }

    /// Wakes every caller of ``finished()``.
    func releaseWaiters() {
        let waiters = state.withLock { state in
            defer { state.waiters.removeAll() }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once the request completed and its waiters were released (at once when it completed before).
    func finished() async {
        await withCheckedContinuation { continuation in
            let done = state.withLock { state -> Bool in
                guard state.machine.phase != .finished else { return true }
                state.waiters.append(continuation)
                return false
            }
            if done { continuation.resume() }
        }
    }

    // MARK: Progress

    /// Records `progress` and tells the listeners of its direction.
    func report(_ progress: TransferProgress, _ direction: TransferDirection) {
        let listeners = state.withLock { $0.relay.record(progress, direction) }
        for listener in listeners { listener.deliver(progress) }
    }

    /// Calls `block` with each progress snapshot of `direction` until the request completes.
    func addProgressBlock(_ direction: TransferDirection, _ block: @escaping @Sendable (TransferProgress) -> Void) {
        _ = state.withLock { $0.relay.add(.init(direction: direction, deliver: block, end: nil), key: UUID()) }
    }

    /// The progress of one direction as a stream that ends when the request completes; only the newest snapshot is
    /// kept for a slow reader.
    func progressUpdates(_ direction: TransferDirection) -> AsyncStream<TransferProgress> {
        let (stream, continuation) = AsyncStream.makeStream(of: TransferProgress.self, bufferingPolicy: .bufferingNewest(1))
        let key = UUID()
        let listener = ProgressRelay.Listener(
            direction: direction, deliver: { continuation.yield($0) }, end: { continuation.finish() }
        )
        let added = state.withLock { $0.relay.add(listener, key: key) }
        guard added else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            self?.state.withLock { $0.relay.remove(key: key) }
        }
        return stream
    }
}
