/// Where a job is in its life. A job is `pending` until a worker claims it, `running` while a worker holds its
/// lease, and ends `succeeded` or `deadLettered`; a failed attempt that may be retried puts it back to `pending`
/// with a later ``QueuedJob/notBefore``, and a lease that expires (its worker died) puts it back at once.
public enum JobState: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    /// Waiting for a worker (or for its ``QueuedJob/notBefore``, its ordering key's earlier jobs, or the network).
    case pending
    /// Claimed by a worker under a lease.
    case running
    /// Answered with a status below 400; ``QueuedJob/outcome`` holds the response.
    case succeeded
    /// Given up: a status that is not worth retrying, too many attempts, a passed deadline, or a stored job that
    /// cannot be read back; ``QueuedJob/outcome`` holds the last response or error.
    case deadLettered = "dead"

    /// `pending`, `running`, `succeeded` or `dead`.
    public var description: String { rawValue }

    /// The states a job stays in (succeeded or dead-lettered).
    public var isFinished: Bool { self == .succeeded || self == .deadLettered }
}
