import Foundation
import Synchronization

/// One stubbed request's cancellation: by the awaiting task, the exchange's `TransportCancellation` or the body's
/// `cancel()`. Waits (the head's delay, the pause between chunks) end at once with `URLError(.cancelled)`.
final class StubCancellation: Sendable {
    private struct State {
        var isCancelled = false
        var waiter: CheckedContinuation<Void, any Error>?
        var waitID = 0
    }

    private let state = Mutex(State())
    let url: URL

    init(url: URL) {
        self.url = url
    }

    var cancelledError: URLError {
        URLError(.cancelled, userInfo: [NSURLErrorFailingURLErrorKey: url, NSLocalizedDescriptionKey: "The request was cancelled."])
    }

    func cancel() {
        let waiter = state.withLock { state in
            state.isCancelled = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(throwing: cancelledError)
    }

    /// Throws `URLError(.cancelled)` once cancelled.
    func check() throws {
        if state.withLock({ $0.isCancelled }) { throw cancelledError }
    }

    /// Waits `duration`, or less when cancelled meanwhile (then throws).
    func wait(_ duration: Duration) async throws {
        try check()
        guard duration > .zero else { return }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let id = state.withLock { state -> Int? in
                    guard !state.isCancelled else { return nil }
                    state.waitID += 1
                    state.waiter = continuation
                    return state.waitID
                }
                guard let id else { return continuation.resume(throwing: cancelledError) }
                let (seconds, attoseconds) = duration.components
                let nanoseconds = Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
                DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(nanoseconds)) { [self] in
                    let due = state.withLock { state -> CheckedContinuation<Void, any Error>? in
                        guard state.waitID == id else { return nil }
                        defer { state.waiter = nil }
                        return state.waiter
                    }
                    due?.resume()
                }
            }
        } onCancel: {
            cancel()
        }
    }
}
