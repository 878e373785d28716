import Synchronization

/// At most `limit` downloads at a time; the others wait in order of priority, then first or last in first
/// (``ImageDownloadPrioritization``). A waiter whose task is cancelled leaves the queue at once.
final class DownloadSlots: Sendable {
    private struct Waiter {
        let id: UInt64
        let priority: ImageDownloadPriority
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var active = 0
        var waiters: [Waiter] = []
        var nextID: UInt64 = 0
        /// Waiters cancelled before they queued (the cancellation handler ran first).
        var cancelledEarly: Set<UInt64> = []
    }

    private let limit: Int
    private let prioritization: ImageDownloadPrioritization
    private let state = Mutex(State())

    init(limit: Int, prioritization: ImageDownloadPrioritization) {
        self.limit = max(limit, 1)
        self.prioritization = prioritization
    }

    /// Downloads holding a slot now.
    var active: Int { state.withLock { $0.active } }
    /// Downloads waiting for one.
    var waiting: Int { state.withLock { $0.waiters.count } }

    /// Waits for a slot. Every successful call is matched by one ``release()``.
    /// - Throws: `CancellationError` when the calling task is cancelled while it waits.
    func acquire(priority: ImageDownloadPriority) async throws {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let outcome: Result<Void, any Error>? = state.withLock { state in
                    if state.cancelledEarly.remove(id) != nil { return .failure(CancellationError()) }
                    if state.active < limit {
                        state.active += 1
                        return .success(())
                    }
                    state.waiters.append(Waiter(id: id, priority: priority, continuation: continuation))
                    return nil
                }
                if let outcome { continuation.resume(with: outcome) }
            }
        } onCancel: {
            let waiter: Waiter? = state.withLock { state in
                guard let index = state.waiters.firstIndex(where: { $0.id == id }) else {
                    state.cancelledEarly.insert(id)
                    return nil
                }
                return state.waiters.remove(at: index)
            }
            waiter?.continuation.resume(throwing: CancellationError())
        }
        // A slot granted to a task cancelled in the meantime is used: the caller's next await sees the cancellation.
        state.withLock { _ = $0.cancelledEarly.remove(id) }
    }

    /// Gives a slot back: the next waiter (highest priority, then by ``ImageDownloadPrioritization``) takes it.
    func release() {
        let next: Waiter? = state.withLock { state in
            guard !state.waiters.isEmpty else {
                state.active -= 1
                return nil
            }
            let index = nextIndex(in: state.waiters)
            return state.waiters.remove(at: index)
        }
        next?.continuation.resume()
    }

    private func nextIndex(in waiters: [Waiter]) -> Int {
        var best = 0
        for index in waiters.indices.dropFirst() {
            let candidate = waiters[index], current = waiters[best]
            if candidate.priority > current.priority || (candidate.priority == current.priority && prioritization == .lifo) {
                best = index
            }
        }
        return best
    }
}
