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

extension SessionTaskState {
    /// The task state a driver's phase shows: URLSession has no idle or paused, only suspended.
    init(_ phase: DriverPhase) {
        switch phase {
        case .idle, .paused: self = .suspended
        case .running: self = .running
        case .cancelling: self = .canceling
        case .finished: self = .completed
        }
    }
}
