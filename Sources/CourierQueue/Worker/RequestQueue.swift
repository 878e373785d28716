import Courier
import Foundation
import Logging
import Synchronization
import Tracing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Requests that must reach their server eventually: each is stored durably before ``enqueue(_:options:)`` returns,
/// then sent by a worker (``run()`` or ``drain()``) until it succeeds or is given up, across crashes and restarts.
///
/// **At least once.** A job is marked succeeded only after its response arrived. A worker that dies mid-attempt
/// leaves the job under a lease that runs out (``QueueConfiguration/leaseDuration``), and it is sent again: the
/// server may see a request twice, never zero times. Requests whose method is not idempotent carry an
/// `Idempotency-Key` (the IETF httpapi draft), made at enqueue and the same on every attempt, so a server that honours
/// it acts once.
///
/// **Order and limits.** Jobs start in the order they were enqueued; those sharing an ordering key strictly so
/// (only the earliest unfinished one is in flight). A worker runs at most
/// ``QueueConfiguration/maximumConcurrentJobs`` at once, and at most
/// ``QueueConfiguration/maximumConcurrentJobsPerHost`` run for one host across all workers.
///
/// **Retries and dead letters.** A status below 400 succeeds. A failure that ``QueueConfiguration/retryPolicy``
/// retries puts the job back with a backoff (or the server's `Retry-After`); any other status of 400 or more, too
/// many attempts, or a deadline that would pass first dead-letters it. Every ended job keeps its ``JobOutcome``.
public final class RequestQueue: Sendable {
    /// The store the jobs are kept in.
    public let store: any QueueStore
    /// The session that sends them: its configuration (TLS, proxies, cookies, interceptors) applies to every attempt.
    public let session: URLSessionManager
    /// How jobs are run.
    public let configuration: QueueConfiguration
    /// The name in this queue's metrics and log lines. Default "default".
    public let name: String

    private let broadcaster = QueueEventBroadcaster()
    private let wake = WakeSignal()
    private let working = Mutex(false)
    private let metrics: QueueMetrics
    private let logger: Logger

    /// The queue's default retry policy (see ``QueueConfiguration/retryPolicy``).
    public static var defaultRetryPolicy: RetryPolicy {
        RetryPolicy(
            retryLimit: 9, exponentialBackoffBase: 2, exponentialBackoffScale: 30, jitter: true,
            retryableHTTPMethods: ["GET", "HEAD", "PUT", "DELETE", "OPTIONS", "TRACE", "POST", "PATCH"],
            retryableHTTPStatusCodes: Set([408, 425, 429]).union(500...599),
            maximumRetryAfter: 5 * 3600, budget: nil
        )
    }

    /// A queue over `store`, sending through `session`.
    public init(
        store: any QueueStore,
        session: URLSessionManager = URLSessionManager(),
        configuration: QueueConfiguration = QueueConfiguration(),
        name: String = "default",
        logger: Logger = Logger(label: "courier.queue")
    ) {
        self.store = store
        self.session = session
        self.configuration = configuration
        self.name = name
        self.metrics = QueueMetrics(queue: name, factory: configuration.metricsFactory)
        self.logger = logger
    }

    // MARK: - Enqueueing

    /// Stores `request` (its `httpBody`, or its `httpBodyStream` read to the end) and returns the job's id once it
    /// is durable.
    /// - Throws: ``QueueStoreError/invalidRequest(reason:)`` for a request no transport would send, or the store's error.
    @discardableResult
    public func enqueue(_ request: URLRequest, options: JobOptions = JobOptions()) async throws -> UUID {
        try await enqueue([(request, options)])[0]
    }

    /// Stores `request` with the contents of `bodyFile` as its body (copied into the store, so later changes to
    /// the file do not reach the job).
    @discardableResult
    public func enqueue(_ request: URLRequest, bodyFile: URL, options: JobOptions = JobOptions()) async throws -> UUID {
        let job = try makeJob(request, body: .file(bodyFile), options: options)
        try await store.add([job])
        announce([job.id])
        return job.id
    }

    /// Stores `requests` in one transaction (all or none, one flush to the disk) and returns their ids in order.
    @discardableResult
    public func enqueue(_ requests: [(URLRequest, JobOptions)]) async throws -> [UUID] {
        var jobs: [NewJob] = []
        jobs.reserveCapacity(requests.count)
        for (request, options) in requests {
            jobs.append(try makeJob(request, body: try Self.body(of: request), options: options))
        }
        try await store.add(jobs)
        let ids = jobs.map(\.id)
        announce(ids)
        return ids
    }

    /// Stores an operation's request: an `HTTPRequestOperation` made for later, kept across launches (AFNetworking
    /// archived operations for this; the queue also sends them).
    @discardableResult
    public func enqueue(operation: URLConnectionOperation, options: JobOptions = JobOptions()) async throws -> UUID {
        try await enqueue(operation.request, options: options)
    }

    private func announce(_ ids: [UUID]) {
        for id in ids { broadcaster.emit(.enqueued(id)) }
        wake.signal()
    }

    /// The job for `request`: checked by the rules stored requests are read back with, given its idempotency key.
    private func makeJob(_ request: URLRequest, body: JobBody, options: JobOptions) throws -> NewJob {
        var stored = OperationArchive.Request(request)
        stored.body = nil
        do {
            stored = try stored.validated()
        } catch {
            throw QueueStoreError.invalidRequest(reason: error.description)
        }
        guard let url = stored.url, let host = url.host, !host.isEmpty else {
            throw QueueStoreError.invalidRequest(reason: "it has no URL with a host")
        }
        let method = (stored.method ?? "GET").uppercased()
        let id = options.jobID ?? UUID()
        let hasKey = stored.headers.keys.contains { $0.caseInsensitiveCompare("Idempotency-Key") == .orderedSame }
        if !hasKey {
            if let key = options.idempotencyKey {
                stored.headers["Idempotency-Key"] = key
            } else if !RetryPolicy.defaultRetryableHTTPMethods.contains(method) {
                // The job's id: unique to the job, made at random (or the caller's, which names one request), the same
                // on every attempt. The draft's value is a structured-field string: a UUID needs no escaping inside
                // the quotes.
                stored.headers["Idempotency-Key"] = "\"\(id.uuidString.lowercased())\""
            }
        }
        if let deadline = options.deadline, !deadline.timeIntervalSince1970.isFinite {
            throw QueueStoreError.invalidRequest(reason: "its deadline is not a date")
        }
        return NewJob(
            id: id, request: stored, body: body, host: host.lowercased(), options: options, enqueuedAt: Date(),
            traceContext: TraceContextCarrier.current()
        )
    }

    /// The body `request` carries: its bytes, or its stream read to the end (a stream cannot be stored otherwise).
    private static func body(of request: URLRequest) throws -> JobBody {
        if let data = request.httpBody { return .data(data) }
        guard let stream = request.httpBodyStream else { return .none }
        var data = Data()
        stream.open()
        defer { stream.close() }
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBufferPointer { pointer -> Int in
                guard let base = pointer.baseAddress else { return -1 }
                return stream.read(base, maxLength: pointer.count)
            }
            if count < 0 {
                throw QueueStoreError.invalidRequest(
                    reason: "its body stream failed: \(stream.streamError?.localizedDescription ?? "unknown error")")
            }
            if count == 0 { return .data(data) }
            data.append(contentsOf: buffer[0..<count])
        }
    }

    // MARK: - Reading

    /// A new sequence of this queue's events, from now on, until the subscriber stops iterating or the queue's
    /// ``close()``. Events of other processes' workers are not included.
    ///
    /// One job's events come in the order they happened. Two jobs' events need not: a job's end is reported once
    /// the store has recorded it, and by then its slot (its host's, its ordering key's) is free, so the job that
    /// takes the slot can report ``QueueEvent/started(_:attempt:)`` first. The store's count is the one the limits
    /// keep: ``jobs(in:limit:)`` with ``JobState/running``.
    public func events() -> AsyncStream<QueueEvent> {
        broadcaster.subscribe()
    }

    /// The job with `id`.
    public func job(_ id: UUID) async throws -> QueuedJob? {
        try await store.job(id)
    }

    /// The jobs in `states`, in queue order, at most `limit` (default 1,000).
    public func jobs(in states: Set<JobState> = Set(JobState.allCases), limit: Int = 1000) async throws -> [QueuedJob] {
        try await store.jobs(in: states, limit: limit)
    }

    /// Ends the event sequences and closes the store.
    public func close() async throws {
        broadcaster.finish()
        try await store.close()
    }

    // MARK: - Working

    /// Runs jobs until the calling task is cancelled; then it stops claiming, and the jobs it was running go back to
    /// the queue, due at once (a cancelled run returns normally).
    /// - Throws: the store's error when it cannot be read or written (the jobs in flight then stay under their
    ///   leases, which run out).
    public func run() async throws {
        try await work(untilDrained: false)
    }

    /// Runs jobs until none is pending or running (jobs waiting for their `notBefore`, a route, or another worker's
    /// lease are waited for), or the calling task is cancelled.
    public func drain() async throws {
        try await work(untilDrained: true)
    }

    private func work(untilDrained: Bool) async throws {
        let alreadyWorking = working.withLock { working in
            defer { working = true }
            return working
        }
        guard !alreadyWorking else { throw QueueAlreadyRunningError() }
        defer { working.withLock { $0 = false } }
        let worker = JobRunner(queue: self, worker: Self.workerName())
        try await worker.work(untilDrained: untilDrained)
    }

    private static func workerName() -> String {
        "\(ProcessInfo.processInfo.hostName)/\(ProcessInfo.processInfo.processIdentifier)"
    }

    // Parts the runner uses.
    var eventSink: QueueEventBroadcaster { broadcaster }
    var wakeSignal: WakeSignal { wake }
    var queueMetrics: QueueMetrics { metrics }
    var log: Logger { logger }
}

/// ``RequestQueue/run()`` or ``RequestQueue/drain()`` was called while the same queue was already running one: a
/// queue runs one worker loop at a time (start more queues on the same store for more workers).
public struct QueueAlreadyRunningError: Error, Sendable, CustomStringConvertible {
    /// "The queue is already running; it runs one run() or drain() at a time."
    public var description: String { "The queue is already running; it runs one run() or drain() at a time." }
}
