import Foundation
import Synchronization

/// Something that happened to a job, as ``RequestQueue/events()`` reports it.
public enum QueueEvent: Sendable, Equatable {
    /// The job was stored.
    case enqueued(UUID)
    /// An attempt began (`attempt` counts from 1).
    case started(UUID, attempt: Int)
    /// An attempt failed and the job will run again at `at`; `reason` is the status or the error.
    case retryScheduled(UUID, attempt: Int, at: Date, reason: String)
    /// The job succeeded with `status`.
    case succeeded(UUID, status: Int, attempts: Int)
    /// The job was dead-lettered; `reason` is the last status or error.
    case deadLettered(UUID?, reason: String)
    /// The worker's lease ran out before its attempt ended: another worker has the job, and this attempt's outcome
    /// was not recorded.
    case leaseLost(UUID)
}

/// Hands every event to each current subscriber.
final class QueueEventBroadcaster: Sendable {
    private let subscribers = Mutex<[UUID: AsyncStream<QueueEvent>.Continuation]>([:])

    func subscribe() -> AsyncStream<QueueEvent> {
        let (stream, continuation) = AsyncStream<QueueEvent>.makeStream(bufferingPolicy: .bufferingNewest(10_000))
        let id = UUID()
        subscribers.withLock { $0[id] = continuation }
        continuation.onTermination = { [weak self] _ in
            _ = self?.subscribers.withLock { $0.removeValue(forKey: id) }
        }
        return stream
    }

    func emit(_ event: QueueEvent) {
        let current = subscribers.withLock { Array($0.values) }
        for continuation in current { continuation.yield(event) }
    }

    func finish() {
        let current = subscribers.withLock { subscribers in
            defer { subscribers.removeAll() }
            return Array(subscribers.values)
        }
        for continuation in current { continuation.finish() }
    }
}
