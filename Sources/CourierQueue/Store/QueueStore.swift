import Courier
import Foundation

/// Where a ``RequestQueue`` keeps its jobs. A store makes every change durable before it returns, and hands a
/// pending job to one worker at a time under a lease: ``SQLiteQueueStore`` is the embedded one.
///
/// Stores are driven by ``RequestQueue``; a store of your own (another database) implements these calls with the
/// same meaning, each as one transaction.
public protocol QueueStore: Sendable {
    /// Adds `jobs`, all or none, durably (bodies first, then the rows) before returning. A job whose id the store
    /// already has is skipped: the store keeps the one it has (``JobOptions/jobID``).
    func add(_ jobs: [NewJob]) async throws

    /// Puts jobs whose lease expired back to pending, dead-letters those past their deadline or that cannot be
    /// read back, and claims up to `claim.limit` due jobs for `claim.worker`, in order, each under a new lease.
    func claim(_ claim: JobClaim) async throws -> ClaimResult

    /// Extends `leases` that are still held to `until`; leases lost meanwhile are left alone.
    func renew(_ leases: [JobLease], until: Date) async throws

    /// Records how an attempt ended, if `lease` still holds the job. Returns `false` when it does not (the lease
    /// expired and the job went back to the queue): the outcome is then not recorded, so each job's end is
    /// recorded once.
    func resolve(_ lease: JobLease, as resolution: JobResolution) async throws -> Bool

    /// Jobs in `states`, in queue order, at most `limit`.
    func jobs(in states: Set<JobState>, limit: Int) async throws -> [QueuedJob]

    /// The job with `id`, if the store has it.
    func job(_ id: UUID) async throws -> QueuedJob?

    /// How many jobs are pending and running, and the earliest date after `now` at which a pending job becomes due.
    func schedule(now: Date) async throws -> QueueSchedule

    /// Puts dead-lettered jobs (those in `ids`, or all when `ids` is nil) back to pending with their attempts
    /// reset; returns the jobs moved.
    func requeueDeadLettered(_ ids: [UUID]?) async throws -> [UUID]

    /// Removes the jobs in `states` (never running ones) and their bodies; returns how many went.
    func purge(_ states: Set<JobState>) async throws -> Int

    /// Closes the store; no call may follow.
    func close() async throws
}

/// A request's body as a store keeps it.
public enum JobBody: Sendable, Equatable {
    /// No body.
    case none
    /// Bytes in memory.
    case data(Data)
    /// A file's contents: at enqueue, a file the store copies; at claim, the store's own copy.
    case file(URL)
}

/// A job to add.
public struct NewJob: Sendable {
    /// Its identifier.
    public var id: UUID
    /// The request without its body, with its `Idempotency-Key`.
    public var request: OperationArchive.Request
    /// Its body.
    public var body: JobBody
    /// The host it goes to (per-host limits count by it).
    public var host: String
    /// The options it was enqueued with (``JobOptions/notBefore`` nil means `enqueuedAt`).
    public var options: JobOptions
    /// When it was enqueued.
    public var enqueuedAt: Date
    /// The enqueuer's trace context (W3C `traceparent` and `tracestate`), so attempts can link to it.
    public var traceContext: [String: String]

    /// A new job; every field as its property says.
    public init(
        id: UUID, request: OperationArchive.Request, body: JobBody, host: String, options: JobOptions,
        enqueuedAt: Date, traceContext: [String: String]
    ) {
        self.id = id
        self.request = request
        self.body = body
        self.host = host
        self.options = options
        self.enqueuedAt = enqueuedAt
        self.traceContext = traceContext
    }
}

/// What a worker asks a store for.
public struct JobClaim: Sendable {
    /// The worker's name, kept with its leases (for people reading the store).
    public var worker: String
    /// The most jobs to claim.
    public var limit: Int
    /// The most jobs running at once for one host, across every worker of the store (`nil`: no limit).
    public var perHostLimit: Int?
    /// The time the claim is made at.
    public var now: Date
    /// How long a lease lasts unless renewed.
    public var leaseDuration: TimeInterval
    /// Whether there is a route: when false, jobs that require the network are not claimed.
    public var online: Bool

    /// A claim; every field as its property says.
    public init(worker: String, limit: Int, perHostLimit: Int?, now: Date, leaseDuration: TimeInterval, online: Bool) {
        self.worker = worker
        self.limit = limit
        self.perHostLimit = perHostLimit
        self.now = now
        self.leaseDuration = leaseDuration
        self.online = online
    }
}

/// A worker's hold on a running job.
public struct JobLease: Sendable, Hashable {
    /// The job.
    public var jobID: UUID
    /// This claim's token: a job claimed again (after its lease expired) gets another.
    public var token: String

    /// A lease; every field as its property says.
    public init(jobID: UUID, token: String) {
        self.jobID = jobID
        self.token = token
    }
}

/// A job handed to a worker.
public struct ClaimedJob: Sendable {
    /// The job, now running, its attempts counting this one.
    public var job: QueuedJob
    /// The worker's lease on it.
    public var lease: JobLease
    /// Its body.
    public var body: JobBody
    /// The enqueuer's trace context.
    public var traceContext: [String: String]

    /// A claimed job; every field as its property says.
    public init(job: QueuedJob, lease: JobLease, body: JobBody, traceContext: [String: String]) {
        self.job = job
        self.lease = lease
        self.body = body
        self.traceContext = traceContext
    }
}

/// What a claim found.
public struct ClaimResult: Sendable {
    /// The jobs claimed.
    public var jobs: [ClaimedJob]
    /// Jobs dead-lettered by the claim, each with why: past their deadline, or stored in a form that cannot be read
    /// back (``QueueStoreError``).
    public var deadLettered: [(id: UUID?, error: QueueStoreError)]

    /// A result; every field as its property says.
    public init(jobs: [ClaimedJob], deadLettered: [(id: UUID?, error: QueueStoreError)]) {
        self.jobs = jobs
        self.deadLettered = deadLettered
    }
}

/// How an attempt ended, as the store records it.
public enum JobResolution: Sendable {
    /// Answered below 400.
    case succeeded(JobOutcome)
    /// Failed; to run again from `at`.
    case retry(at: Date, JobOutcome)
    /// Failed for good.
    case deadLettered(JobOutcome)

    /// The outcome recorded with it.
    public var outcome: JobOutcome {
        switch self {
        case .succeeded(let outcome), .retry(_, let outcome), .deadLettered(let outcome): outcome
        }
    }
}

/// The queue's depth and next due time.
public struct QueueSchedule: Sendable, Equatable {
    /// Jobs waiting.
    public var pending: Int
    /// Jobs claimed by a worker.
    public var running: Int
    /// The earliest date after the one asked about at which a pending job becomes due (`nil`: none waits for a date;
    /// jobs already due but not claimed wait for an earlier job of their ordering key, a host's slot or a route).
    public var nextDue: Date?
    /// When the oldest pending or running job was enqueued.
    public var oldestEnqueuedAt: Date?

    /// A schedule; every field as its property says.
    public init(pending: Int, running: Int, nextDue: Date?, oldestEnqueuedAt: Date?) {
        self.pending = pending
        self.running = running
        self.nextDue = nextDue
        self.oldestEnqueuedAt = oldestEnqueuedAt
    }
}
