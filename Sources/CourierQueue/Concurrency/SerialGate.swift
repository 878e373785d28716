import Synchronization

/// Lets one task at a time through, in the order they arrived: what keeps a transaction's statements together on a
/// connection that other tasks share. (Not an actor: an actor lets another call in at every `await`, which is
/// exactly between two statements of a transaction.)
final class SerialGate: Sendable {
    private struct State {
        var busy = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    /// Runs `body` once every task that arrived before has left.
    func run<Result: Sendable>(_ body: () async throws -> Result) async throws -> Result {
        await enter()
        defer { leave() }
        return try await body()
    }

    private func enter() async {
        // The usual case, an idle gate, enters without suspending.
        let entered = state.withLock { state -> Bool in
            guard !state.busy else { return false }
            state.busy = true
            return true
        }
        if entered { return }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let admitted = state.withLock { state -> Bool in
                if state.busy {
                    state.waiters.append(continuation)
                    return false
                }
                state.busy = true
                return true
            }
            if admitted { continuation.resume() }
        }
    }

    private func leave() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard !state.waiters.isEmpty else {
                state.busy = false
                return nil
            }
            return state.waiters.removeFirst()
        }
        next?.resume()
    }
}
