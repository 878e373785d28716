import Courier
import Foundation
import Logging
import Synchronization
import Tracing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One worker's loop: claims due jobs while it has free slots, runs each attempt as a child task, renews the
/// leases of the jobs in flight, and sleeps until a job ends, one is enqueued here, or the next is due.
struct JobRunner: Sendable {
    let queue: RequestQueue
    let worker: String

    private var configuration: QueueConfiguration { queue.configuration }

    func work(untilDrained: Bool) async throws {
        let inFlight = LeasesInFlight()
        // Idempotent: a manager already monitoring goes on as it is.
        configuration.reachability?.startMonitoring()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await renewLeases(of: inFlight) }
            defer { group.cancelAll() }
            claiming: while !Task.isCancelled {
                let free = configuration.maximumConcurrentJobs - inFlight.withLock { $0.count }
                var claimedAll = false
                if free > 0 {
                    let claim = JobClaim(
                        worker: worker, limit: free, perHostLimit: configuration.maximumConcurrentJobsPerHost, now: Date(),
                        leaseDuration: configuration.leaseDuration, online: isOnline)
                    let result: ClaimResult
                    do {
                        result = try await queue.store.claim(claim)
                    } catch where Task.isCancelled {
                        break claiming  // a cancelled worker stops claiming (the store refuses work for a cancelled task)
                    }
                    report(result.deadLettered)
                    for claimed in result.jobs {
                        inFlight.withLock { $0[claimed.job.id] = claimed.lease }
                        group.addTask {
                            await attempt(claimed)
                            inFlight.withLock { _ = $0.removeValue(forKey: claimed.job.id) }
                            queue.wakeSignal.signal()
                        }
                    }
                    claimedAll = !result.jobs.isEmpty && result.jobs.count == free
                } else {
                    // Every slot is busy: the next thing to do is claim when one ends.
                    await queue.wakeSignal.wait(upTo: configuration.pollInterval)
                    continue claiming
                }
                if claimedAll { continue claiming }
                let now = Date()
                let schedule: QueueSchedule
                do {
                    schedule = try await queue.store.schedule(now: now)
                } catch where Task.isCancelled {
                    break claiming
                }
                queue.queueMetrics.record(schedule, now: now)
                if untilDrained, schedule.pending == 0, schedule.running == 0, inFlight.withLock({ $0.isEmpty }) { break claiming }
                var wait = configuration.pollInterval
                if let due = schedule.nextDue { wait = min(wait, max(0, due.timeIntervalSince(now))) }
                await queue.wakeSignal.wait(upTo: wait)
            }
            // A cancelled run stops claiming; its attempts in flight are cancelled with it and put their jobs back.
            group.cancelAll()
            try await group.waitForAll()
        }
    }

    private var isOnline: Bool {
        guard let reachability = configuration.reachability else { return true }
        let status = reachability.networkReachabilityStatus
        return status == .unknown || status.isReachable
    }

    /// Extends the leases in flight every third of a lease, so that a job outlasting its lease is not taken back
    /// while its worker lives.
    private func renewLeases(of inFlight: LeasesInFlight) async {
        let interval = configuration.leaseDuration / 3
        while !Task.isCancelled {
            try? await Task.sleep(for: .seconds(interval))
            let leases = inFlight.withLock { Array($0.values) }
            do {
                try await queue.store.renew(leases, until: Date().addingTimeInterval(configuration.leaseDuration))
            } catch {
                queue.log.warning("could not renew \(leases.count) leases: \(error)")
            }
        }
    }

    private func report(_ deadLettered: [(id: UUID?, error: QueueStoreError)]) {
        for (id, error) in deadLettered {
            queue.queueMetrics.deadLetters.increment()
            queue.log.error("\(error.description)")
            queue.eventSink.emit(.deadLettered(id, reason: error.description))
        }
    }

    // MARK: - One attempt

    private func attempt(_ claimed: ClaimedJob) async {
        let job = claimed.job
        queue.eventSink.emit(.started(job.id, attempt: job.attempts))
        queue.queueMetrics.attempts.increment()
        let started = Date()
        let resolution = await withSpan("courier.queue.attempt", ofKind: .consumer) { span in
            if !claimed.traceContext.isEmpty {
                span.addLink(SpanLink(context: TraceContextCarrier.context(from: claimed.traceContext), attributes: [:]))
            }
            span.attributes["courier.queue.job_id"] = job.id.uuidString
            span.attributes["courier.queue.attempt"] = job.attempts
            return await send(claimed, started: started)
        }
        if Task.isCancelled {
            // The worker is stopping (its task was cancelled), not the job failing: the job goes back to the queue as
            // it was, due at once, for the next worker (this attempt still counts).
            // (In a task of its own: the store's thread pool refuses work for a cancelled task.)
            let store = queue.store
            let putBack = JobResolution.retry(at: Date(), job.outcome ?? resolution.outcome)
            _ = try? await Task { try await store.resolve(claimed.lease, as: putBack) }.value
            return
        }
        let recorded: Bool
        do {
            recorded = try await queue.store.resolve(claimed.lease, as: resolution)
        } catch {
            // Not recorded: the lease runs out and the job is sent again (at least once).
            queue.log.error("could not record the end of job \(job.id): \(error)")
            return
        }
        guard recorded else {
            queue.eventSink.emit(.leaseLost(job.id))
            return
        }
        switch resolution {
        case .succeeded(let outcome):
            queue.queueMetrics.succeeded.increment()
            queue.eventSink.emit(.succeeded(job.id, status: outcome.statusCode ?? 0, attempts: outcome.attempts))
        case .retry(let date, let outcome):
            queue.queueMetrics.retries.increment()
            queue.eventSink.emit(.retryScheduled(job.id, attempt: job.attempts, at: date, reason: Self.reason(outcome)))
        case .deadLettered(let outcome):
            queue.queueMetrics.deadLetters.increment()
            queue.eventSink.emit(.deadLettered(job.id, reason: Self.reason(outcome)))
        }
    }

    /// Sends the job once and decides what its outcome means.
    private func send(_ claimed: ClaimedJob, started: Date) async -> JobResolution {
        let job = claimed.job
        let request = job.request.makeRequest()
        var response: HTTPURLResponse?
        var failure: any Error
        do {
            let answer = try await exchange(request, body: claimed.body, job: job)
            let received = answer.response
            response = received
            let outcome = JobOutcome(
                statusCode: received.statusCode, headers: OperationArchive.Response(received).headers,
                body: answer.body.prefix(configuration.maximumStoredResponseBody), bodyByteCount: answer.bodyByteCount,
                attempts: job.attempts, startedAt: started, finishedAt: Date())
            if received.statusCode < 400 { return .succeeded(outcome) }
            failure = HTTPStatusError(response: received)
            return await decide(request, response: response, error: failure, job: job, outcome: outcome)
        } catch {
            failure = error
        }
        let outcome = JobOutcome(
            error: OperationArchive.ErrorRecord(failure), attempts: job.attempts, startedAt: started, finishedAt: Date())
        return await decide(request, response: response, error: failure, job: job, outcome: outcome)
    }

    /// One exchange, by the configuration's performer or through the queue's session.
    private func exchange(_ request: URLRequest, body: JobBody, job: QueuedJob) async throws -> JobResponse {
        if let performer = configuration.performer { return try await performer.perform(request, body: body, job: job) }
        let (data, response): (Data, HTTPURLResponse)
        switch body {
        case .none:
            (data, response) = try await queue.session.data(for: request)
        case .data(let bytes):
            (data, response) = try await queue.session.upload(for: request, from: bytes)
        case .file(let url):
            let task = queue.session.uploadTask(with: request, fromFile: url, completionHandler: nil)
            data = try await task.value
            response = try await task.completedResponse
        }
        return JobResponse(response: response, body: data)
    }

    /// Retry or dead letter, by the retry policy, the attempt limit, the backoff cap and the deadline.
    private func decide(
        _ request: URLRequest, response: HTTPURLResponse?, error: any Error, job: QueuedJob, outcome: JobOutcome
    ) async -> JobResolution {
        let decision = await configuration.retryPolicy.retry(
            request, response: response, error: error, attempt: RequestAttempt(number: job.attempts - 1, canResendBody: true))
        switch decision {
        case .retry(let delay):
            let next = Date().addingTimeInterval(min(max(0, delay), configuration.maximumBackoff))
            if let deadline = job.deadline, next > deadline {
                var late = outcome
                if late.statusCode == nil {
                    late.error = OperationArchive.ErrorRecord(QueueStoreError.deadlinePassed(id: job.id, deadline: deadline))
                }
                return .deadLettered(late)
            }
            return .retry(at: next, outcome)
        case .doNotRetry(let replacement):
            var final = outcome
            if let replacement { final.error = OperationArchive.ErrorRecord(replacement) }
            return .deadLettered(final)
        }
    }

    private static func reason(_ outcome: JobOutcome) -> String {
        if let status = outcome.statusCode {
            if let error = outcome.error { return "\(status): \(error.description)" }
            return "the server answered \(status)"
        }
        return outcome.error?.description ?? "no response"
    }
}

/// The leases of the jobs a worker is running, by job.
final class LeasesInFlight: Sendable {
    private let leases = Mutex<[UUID: JobLease]>([:])

    func withLock<Result>(_ body: (inout [UUID: JobLease]) -> Result) -> Result {
        leases.withLock { body(&$0) }
    }
}
