/// The life of a session task, as `URLSessionTask.State`.
public enum SessionTaskState: Int, Sendable, Equatable {
    /// Sending or receiving (or waiting for a connection).
    case running = 0
    /// Created but not resumed, or suspended: no bytes are read (the connection stays open).
    case suspended = 1
    /// `cancel()` was called; the task has not delivered its completion yet.
    case canceling = 2
    /// Finished, successfully or not; the task delivered its completion.
    case completed = 3
}

/// The pure transitions of a task's state; ``SessionTask`` performs what they return.
struct SessionTaskLifecycle: Sendable, Equatable {
    /// What the task must do after a transition.
    enum Action: Sendable, Equatable {
        case none
        /// Start the exchange (first resume).
        case start
        /// Read again after a suspend.
        case unpause
        /// Stop reading.
        case pause
        /// Cancel the running exchange.
        case cancelExchange
        /// Complete at once with a cancellation error (the task never started).
        case completeCancelled
    }

    private(set) var state = SessionTaskState.suspended
    private(set) var started = false

    mutating func resume() -> Action {
        guard state == .suspended else { return .none }
        state = .running
        if started { return .unpause }
        started = true
        return .start
    }

    mutating func suspend() -> Action {
        guard state == .running else { return .none }
        state = .suspended
        return .pause
    }

    mutating func cancel() -> Action {
        guard state == .running || state == .suspended else { return .none }
        state = .canceling
        return started ? .cancelExchange : .completeCancelled
    }

    /// Returns `false` when the task had already completed.
    mutating func complete() -> Bool {
        guard state != .completed else { return false }
        state = .completed
        started = true
        return true
    }
}
