import Foundation

/// How a job is to be run, given when it is enqueued. Every property defaults to "no constraint".
public struct JobOptions: Sendable, Hashable {
    /// Jobs with the same ordering key run strictly in the order they were enqueued: only the earliest unfinished
    /// one is ever in flight, and the next starts when it has succeeded or been dead-lettered. Default `nil` (no order).
    public var orderingKey: String?
    /// The job is not started before this date. Default `nil` (at once).
    public var notBefore: Date?
    /// The job is dead-lettered instead of started (or retried) after this date. Default `nil` (no deadline).
    public var deadline: Date?
    /// The job waits while the queue's reachability says there is no route, instead of spending attempts on a
    /// network that is not there. Default `false`.
    public var requiresNetwork: Bool
    /// The `Idempotency-Key` sent with every attempt. Default `nil`: a request that carries none gets a new random
    /// one when its method is not idempotent (POST, PATCH and other methods but GET, HEAD, PUT, DELETE, OPTIONS
    /// and TRACE), so that a server can tell a retry from a new request.
    public var idempotencyKey: String?
    /// The job's id. Default `nil`: a new random one. An id the store already has is not added again: the enqueue
    /// returns it and the store keeps the job it has (its request, body, state and outcome), so a producer that may
    /// run more than once (a batch file read again after a crash, or by every worker) adds each job once. One id must
    /// always name the same request and body.
    public var jobID: UUID?

    /// Options; every parameter defaults to the value listed on its property.
    public init(
        orderingKey: String? = nil,
        notBefore: Date? = nil,
        deadline: Date? = nil,
        requiresNetwork: Bool = false,
        idempotencyKey: String? = nil,
        jobID: UUID? = nil
    ) {
        self.orderingKey = orderingKey
        self.notBefore = notBefore
        self.deadline = deadline
        self.requiresNetwork = requiresNetwork
        self.idempotencyKey = idempotencyKey
        self.jobID = jobID
    }
}
