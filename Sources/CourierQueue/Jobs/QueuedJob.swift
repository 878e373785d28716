import Courier
import Foundation

/// A job as the store holds it: what to send, how, and where it stands.
public struct QueuedJob: Sendable, Equatable, Identifiable {
    /// The job's identifier, given at enqueue.
    public var id: UUID
    /// Its place in the queue: jobs are started in this order (an ordering key's jobs strictly so).
    public var sequence: Int64
    /// Where it is in its life.
    public var state: JobState
    /// The request without its body (the store keeps the body apart), with its `Idempotency-Key`.
    public var request: OperationArchive.Request
    /// The body's length in bytes (0 for none).
    public var bodyByteCount: Int64
    /// The ordering key, if any.
    public var orderingKey: String?
    /// Not started (nor retried) before this date.
    public var notBefore: Date
    /// Dead-lettered instead of started after this date.
    public var deadline: Date?
    /// Whether it waits for a route.
    public var requiresNetwork: Bool
    /// The attempts started so far (a claim counts one, so a worker that dies mid-attempt counts too).
    public var attempts: Int
    /// When it was enqueued.
    public var enqueuedAt: Date
    /// The last attempt's outcome, if an attempt has ended.
    public var outcome: JobOutcome?

    /// A job; every field as its property says.
    public init(
        id: UUID, sequence: Int64, state: JobState, request: OperationArchive.Request, bodyByteCount: Int64,
        orderingKey: String?, notBefore: Date, deadline: Date?, requiresNetwork: Bool, attempts: Int,
        enqueuedAt: Date, outcome: JobOutcome?
    ) {
        self.id = id
        self.sequence = sequence
        self.state = state
        self.request = request
        self.bodyByteCount = bodyByteCount
        self.orderingKey = orderingKey
        self.notBefore = notBefore
        self.deadline = deadline
        self.requiresNetwork = requiresNetwork
        self.attempts = attempts
        self.enqueuedAt = enqueuedAt
        self.outcome = outcome
    }
}
