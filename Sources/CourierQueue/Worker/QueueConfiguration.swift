import CoreMetrics
import Courier
import Foundation

/// How a ``RequestQueue`` runs its jobs. Every property has the default listed on it.
public struct QueueConfiguration: Sendable {
    /// The most jobs this queue's worker runs at once. Default 8.
    public var maximumConcurrentJobs: Int
    /// The most jobs running at once for one host, across every worker of the store. Default 4 (`nil`: no limit).
    public var maximumConcurrentJobsPerHost: Int?
    /// How long a claim holds a job. The worker renews its leases every third of this while their jobs run; a worker
    /// that dies stops renewing, and its jobs go back to the queue when their leases run out. Default 60 s.
    public var leaseDuration: TimeInterval
    /// How often an idle worker looks for jobs other processes added or that became due. Default 1 s.
    public var pollInterval: TimeInterval
    /// Decides which failed attempts are retried and after how long. Default ``RequestQueue/defaultRetryPolicy``:
    /// up to 10 attempts, backoff 30 s × 2ⁿ with full jitter (WorkManager's base), `Retry-After` honoured up to 5 h,
    /// any method (the `Idempotency-Key` makes a retried POST safe for a server that honours it), statuses 408, 425,
    /// 429 and 500–599 and the transient network errors; every other status of 400 or more dead-letters the job.
    public var retryPolicy: RetryPolicy
    /// The longest wait between two attempts, whatever the backoff says. Default 5 h (WorkManager's cap).
    public var maximumBackoff: TimeInterval
    /// The most bytes of a response body kept in a job's outcome; the rest is counted, not kept. Default 64 KiB.
    public var maximumStoredResponseBody: Int
    /// Where `requiresNetwork` looks for a route; a running queue starts its monitoring. Default `nil`: every job runs
    /// as if a route exists. An unknown status (a platform that cannot tell) counts as a route; a job waiting for one
    /// is looked at again every ``pollInterval``.
    public var reachability: NetworkReachabilityManager?
    /// Where the queue's metrics go. Default `nil`: the process's `MetricsSystem` (whatever was bootstrapped).
    public var metricsFactory: (any MetricsFactory)?
    /// Sends each attempt. Default `nil`: the queue's session sends it and the response body is read into memory.
    public var performer: (any JobPerformer)?

    /// A configuration; every parameter defaults to the value listed on its property.
    public init(
        maximumConcurrentJobs: Int = 8,
        maximumConcurrentJobsPerHost: Int? = 4,
        leaseDuration: TimeInterval = 60,
        pollInterval: TimeInterval = 1,
        retryPolicy: RetryPolicy = RequestQueue.defaultRetryPolicy,
        maximumBackoff: TimeInterval = 5 * 3600,
        maximumStoredResponseBody: Int = 64 * 1024,
        reachability: NetworkReachabilityManager? = nil,
        metricsFactory: (any MetricsFactory)? = nil,
        performer: (any JobPerformer)? = nil
    ) {
        self.metricsFactory = metricsFactory
        self.maximumConcurrentJobs = max(1, maximumConcurrentJobs)
        self.maximumConcurrentJobsPerHost = maximumConcurrentJobsPerHost.map { max(1, $0) }
        self.leaseDuration = leaseDuration.isFinite ? max(0.5, leaseDuration) : 60
        self.pollInterval = pollInterval.isFinite ? max(0.01, pollInterval) : 1
        self.retryPolicy = retryPolicy
        self.maximumBackoff = maximumBackoff.isFinite ? max(0, maximumBackoff) : 5 * 3600
        self.maximumStoredResponseBody = max(0, maximumStoredResponseBody)
        self.reachability = reachability
        self.performer = performer
    }
}
