/// How a driven request stops for a pause.
enum DriverPauseMode: Sendable, Equatable {
    /// Stop reading; the connection stays open (TCP backpressure) and the same exchange reads on after the resume.
    /// A session task's `suspend()`, as URLSession's.
    case holdConnection
    /// Stop the exchange and keep its bytes; the resume starts a new attempt that continues after them (or starts
    /// over). An operation's `pause()`, as AFNetworking's, which needs no connection held for hours.
    case restart
}

/// Where a driven request is in its life.
enum DriverPhase: Sendable, Equatable, CaseIterable {
    /// Made, never started.
    case idle
    /// An attempt runs.
    case running
    /// Paused: the exchange is held (``DriverPauseMode/holdConnection``) or was stopped (``DriverPauseMode/restart``).
    case paused
    /// Cancelled; the request has not completed yet.
    case cancelling
    /// Completed, successfully or not. Final.
    case finished
}

/// The life of one façade request (a session task or an operation) as a value: its phase and its attempts.
///
/// ``ExchangeDriver`` feeds it the caller's events and performs what it returns; the machine does no I/O, so every
/// phase × event is unit-tested on its own (`DriverStateMachineTests`). An attempt is one ``Exchange``: the first
/// start, and each restart after a pause in ``DriverPauseMode/restart`` mode. Only the current, live attempt's
/// outcome completes the request: an attempt a pause stopped, or one that lost the race with a newer one, is ignored.
struct DriverStateMachine: Sendable, Equatable {
    /// What the driver must do after an event.
    enum Action: Sendable, Equatable {
        /// Nothing.
        case none
        /// Make and run attempt `n` (1 for the first start).
        case startAttempt(Int)
        /// Hold the exchange: it stops reading.
        case pauseExchange
        /// Let the held exchange read again.
        case resumeExchange
        /// Stop the running attempt for a pause: cancel its exchange, keep its bytes; its outcome no longer counts.
        case stopAttempt
        /// Cancel the running (or held) exchange; its outcome, a cancellation, completes the request.
        case cancelAttempt
        /// No attempt is live: the request completes with a cancellation now.
        case completeCancelled
    }

    /// What to do with an attempt's exchange once it is made.
    enum Registration: Sendable, Equatable {
        /// Run it.
        case run
        /// Run it held: a pause came before the exchange existed.
        case runPaused
        /// Run it cancelled: a cancel came before the exchange existed (its outcome is the cancellation).
        case runCancelled
        /// Drop it unstarted: the attempt is no longer current.
        case discard
    }

    let pauseMode: DriverPauseMode
    /// The current phase. Default `.idle`.
    private(set) var phase = DriverPhase.idle
    /// The number of the latest attempt; 0 before the first start.
    private(set) var attempt = 0
    /// Whether the latest attempt's outcome still counts (false once a pause stopped it or the request completed).
    private(set) var attemptIsLive = false

    init(pauseMode: DriverPauseMode) {
        self.pauseMode = pauseMode
    }

    /// Whether an attempt was ever started.
    var hasStarted: Bool { attempt > 0 }

    /// Starts the request, or continues it after a pause.
    mutating func resume() -> Action {
        switch phase {
        case .idle:
            return startNextAttempt()
        case .paused:
            guard pauseMode == .holdConnection else { return startNextAttempt() }
            phase = .running
            return .resumeExchange
        case .running, .cancelling, .finished:
            return .none
        }
    }

    /// Starts the request only if it never started (a caller that runs it in its own task).
    mutating func start() -> Action {
        phase == .idle ? startNextAttempt() : .none
    }

    /// Pauses a running request. A request that is not running (idle, paused, cancelled, finished) stays as it is.
    mutating func pause() -> Action {
        guard phase == .running else { return .none }
        phase = .paused
        guard pauseMode == .restart else { return .pauseExchange }
        attemptIsLive = false
        return .stopAttempt
    }

    /// Cancels the request unless it is cancelling or finished already.
    mutating func cancel() -> Action {
        switch phase {
        case .idle:
            phase = .cancelling
            return .completeCancelled
        case .running:
            phase = .cancelling
            return .cancelAttempt
        case .paused:
            phase = .cancelling
            return attemptIsLive ? .cancelAttempt : .completeCancelled
        case .cancelling, .finished:
            return .none
        }
    }

    /// What to do with attempt `n`'s exchange, now made.
    func register(attempt n: Int) -> Registration {
        guard counts(attempt: n) else { return .discard }
        switch phase {
        case .paused: return .runPaused
        case .cancelling: return .runCancelled
        case .idle, .running, .finished: return .run
        }
    }

    /// Whether attempt `n`'s outcome completes the request.
    func counts(attempt n: Int) -> Bool {
        n == attempt && attemptIsLive && phase != .finished
    }

    /// Completes the request; `false` when it had completed already.
    mutating func complete() -> Bool {
        guard phase != .finished else { return false }
        phase = .finished
        attemptIsLive = false
        return true
    }

    private mutating func startNextAttempt() -> Action {
        phase = .running
        attempt += 1
        attemptIsLive = true
        return .startAttempt(attempt)
    }
}
