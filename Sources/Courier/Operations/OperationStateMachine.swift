/// One of a ``URLConnectionOperation``'s states: AFNetworking 2.0's four.
///
/// Allowed moves: ready → executing, ready → paused, ready → finished (only when cancelled), executing → paused,
/// executing → finished, paused → ready. Finished is final.
public enum OperationState: String, Sendable, Codable, CaseIterable {
    /// Waiting to start (or resumed after a pause). The initial state.
    case ready
    /// Transferring.
    case executing
    /// Paused: neither ready, executing nor finished, so a queue keeps it until resumed or cancelled.
    case paused
    /// Done, successfully or not. Final.
    case finished

    /// The key-value-observing key `OperationQueue` watches for this state, if any.
    var observedKey: String? {
        switch self {
        case .ready: "isReady"
        case .executing: "isExecuting"
        case .finished: "isFinished"
        case .paused: nil
        }
    }
}

/// The life of a ``URLConnectionOperation`` as a value: its state and the moves allowed between them
/// (``OperationState``). Pure; the operation drives it and performs the I/O. Any move not allowed is ignored and
/// reported as `false`.
struct OperationStateMachine: Sendable, Equatable {
    typealias State = OperationState

    /// The current state. Default `.ready`.
    private(set) var state: State

    /// Creates a machine in `state` (default `.ready`).
    init(state: State = .ready) {
        self.state = state
    }

    /// Whether moving from the current state to `target` is allowed; `isCancelled` permits
    /// ready → finished.
    func canTransition(to target: State, isCancelled: Bool) -> Bool {
        switch (state, target) {
        case (.ready, .executing), (.ready, .paused): true
        case (.ready, .finished): isCancelled
        case (.executing, .paused), (.executing, .finished): true
        case (.paused, .ready): true
        default: false
        }
    }

    /// Moves to `target` when allowed; returns whether it moved.
    @discardableResult
    mutating func transition(to target: State, isCancelled: Bool) -> Bool {
        guard canTransition(to: target, isCancelled: isCancelled) else { return false }
        state = target
        return true
    }
}
