import Foundation
import Synchronization

/// Holds the body reader while the exchange is paused.
///
/// The reader calls ``waitWhilePaused()`` before each chunk: open, it returns at once; closed, it
/// suspends until ``open()`` or ``cancel()``. Not reading is what stops the socket reads
/// (backpressure), so the connection stays open while paused.
final class PauseGate: Sendable {
    private struct State {
        var isClosed = false
        var isCancelled = false
        var waiters: [CheckedContinuation<Void, any Error>] = []
    }

    private let state = Mutex(State())

    /// Closes the gate: the next wait suspends.
    func close() {
        state.withLock { if !$0.isCancelled { $0.isClosed = true } }
    }

    /// Opens the gate and releases the waiting reader.
    func open() {
        let waiters = state.withLock { state in
            state.isClosed = false
            defer { state.waiters = [] }
            return state.waiters
        }
        waiters.forEach { $0.resume() }
    }

    /// Releases the waiting reader with `URLError(.cancelled)`; later waits throw at once.
    func cancel() {
        let waiters = state.withLock { state in
            state.isCancelled = true
            state.isClosed = false
            defer { state.waiters = [] }
            return state.waiters
        }
        waiters.forEach { $0.resume(throwing: URLError(.cancelled)) }
    }

    /// Returns when the gate is open; throws `URLError(.cancelled)` once cancelled.
    func waitWhilePaused() async throws {
        // Fast path without a continuation: the gate is almost always open.
        let mustWait = try state.withLock { state -> Bool in
            if state.isCancelled { throw URLError(.cancelled) }
            return state.isClosed
        }
        guard mustWait else { return }
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let immediate: Result<Void, any Error>? = state.withLock { state in
                if state.isCancelled { return .failure(URLError(.cancelled)) }
                guard state.isClosed else { return .success(()) }
                state.waiters.append(continuation)
                return nil
            }
            if let immediate { continuation.resume(with: immediate) }
        }
    }
}
