import Foundation
import NIOCore
import Synchronization

/// Resumes a continuation once, with the result of whichever of its resumers comes first (an answer or a time
/// limit); later resumptions are ignored.
final class FirstResumption<Value: Sendable, Failure: Error>: Sendable {
    private let continuation: Mutex<CheckedContinuation<Value, Failure>?>

    init(_ continuation: CheckedContinuation<Value, Failure>) {
        self.continuation = Mutex(continuation)
    }

    func resume(with result: Result<Value, Failure>) {
        let pending = continuation.withLock { slot in
            defer { slot = nil }
            return slot
        }
        pending?.resume(with: result)
    }
}

/// The value of `work`, or nil when it has not finished within `seconds`. The caller is not held past the limit
/// by a block that never returns: `work` goes on unawaited and its late answer is dropped.
func firstAnswer<Value: Sendable>(within seconds: TimeInterval, of work: @escaping @Sendable () async -> Value) async -> Value? {
    await withCheckedContinuation { (continuation: CheckedContinuation<Value?, Never>) in
        let resumer = FirstResumption(continuation)
        let timer = Task {
            try? await Task.sleep(for: .nanoseconds(TimeAmount(clampedSeconds: seconds).nanoseconds))
            if !Task.isCancelled { resumer.resume(with: .success(nil)) }
        }
        Task {
            let value = await work()
            timer.cancel()
            resumer.resume(with: .success(value))
        }
    }
}
