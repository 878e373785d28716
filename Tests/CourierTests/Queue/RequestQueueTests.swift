import Courier
import CourierQueue
import CourierTestServer
import Crypto
import Foundation
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `RequestQueue` on each store (SQLite, and PostgreSQL from scripts/postgres-test-server), sending to the in-process test server (which records every request it
/// receives, with its `Idempotency-Key`): delivery, keys, bodies, order, limits, retries, dead letters and leases.
@Suite("RequestQueue on each store", .timeLimit(.minutes(3)))
struct RequestQueueTests {
    @Test("each job is sent once; POSTs carry an Idempotency-Key made at enqueue, GETs none", arguments: QueueStoreKind.allCases)
    func eachJobIsSentOnceWithItsKey(store: QueueStoreKind) async throws {
        let fixture = try await QueueFixture.start(store: store)
        defer { Task { await fixture.stop() } }
        var ids: [UUID] = []
        for index in 0..<20 {
            ids.append(try await fixture.queue.enqueue(
                try fixture.request("/anything?job=\(index)", method: "POST", body: Data("job \(index)".utf8))))
        }
        let get = try await fixture.queue.enqueue(try fixture.request("/anything?job=get"))
        try await fixture.queue.drain()

        let log = fixture.server.requestLog.requests
        #expect(log.count == 21)
        var keys = Set<String>()
        for (index, id) in ids.enumerated() {
            let job = try #require(try await fixture.queue.job(id))
            #expect(job.state == .succeeded)
            #expect(job.attempts == 1)
            let stored = try #require(job.request.headers["Idempotency-Key"])
            let received = log.filter { $0.target.hasSuffix("job=\(index)") }
            #expect(received.count == 1)
            #expect(received.first?.header("Idempotency-Key") == stored)
            keys.insert(stored)
            // The draft's form: a structured-field string.
            #expect(stored.hasPrefix("\"") && stored.hasSuffix("\"") && stored.count == 38)
            let outcome = try #require(job.outcome)
            #expect(outcome.statusCode == 200)
            let responseBody = try #require(outcome.body)
            let echoed = try JSONSerialization.jsonObject(with: responseBody) as? [String: Any]
            #expect(echoed?["data"] as? String == "job \(index)")
        }
        #expect(keys.count == 20)
        #expect(log.first { $0.target.hasSuffix("job=get") }?.header("Idempotency-Key") == nil)
        #expect(try await fixture.queue.job(get)?.state == .succeeded)
    }

    @Test("a body over 64 KiB is kept (SQLite: in a file of the store's folder) and sent whole", arguments: QueueStoreKind.allCases)
    func aLongBodyIsKeptInAFileAndSentWhole(store: QueueStoreKind) async throws {
        // The echo holds the body too: the outcome keeps up to 8 MiB of it here.
        let fixture = try await QueueFixture.start(QueueConfiguration(retryPolicy: QueueFixture.policy(), maximumStoredResponseBody: 8 << 20), store: store)
        defer { Task { await fixture.stop() } }
        let body = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
        let id = try await fixture.queue.enqueue(try fixture.request("/post", method: "POST", body: body))
        if store == .sqlite {
            let file = URL(fileURLWithPath: fixture.path + ".bodies").appendingPathComponent(id.uuidString)
            #expect(FileManager.default.contents(atPath: file.path) == body)
        } else {
            // PostgreSQL keeps it in the row: every machine's workers can send it.
            let stored = try await PostgresDatabases.run("SELECT length(body) FROM courier_jobs WHERE id = '\(id.uuidString)'", in: fixture.path)
            #expect(stored == "\(body.count)")
        }

        // A file given as the body is copied: changing it afterwards does not change the job.
        let source = fixture.folder.appendingPathComponent("upload.bin")
        try body.write(to: source)
        let fromFile = try await fixture.queue.enqueue(try fixture.request("/anything", method: "PUT"), bodyFile: source)
        try Data("changed".utf8).write(to: source)

        try await fixture.queue.drain()
        let digest = SHA256.hash(data: body).map { String(format: "%02x", $0) }.joined()
        for job in [id, fromFile] {
            let outcome = try #require(try await fixture.queue.job(job)?.outcome)
            let received = try #require(outcome.body)
            let echoed = try #require(try JSONSerialization.jsonObject(with: received) as? [String: Any])
            #expect(echoed["body_sha256"] as? String == digest)
            #expect(echoed["body_size"] as? Int == body.count)
        }
    }

    @Test("an operation's request, and a request whose body is a stream, are stored whole and sent", arguments: QueueStoreKind.allCases)
    func operationsAndBodyStreamsAreEnqueued(store: QueueStoreKind) async throws {
        let fixture = try await QueueFixture.start(store: store)
        defer { Task { await fixture.stop() } }
        let operation = HTTPRequestOperation(request: try fixture.request("/anything?operation", method: "PATCH", body: Data("patched".utf8)))
        let fromOperation = try await fixture.queue.enqueue(operation: operation)
        var streamed = try fixture.request("/anything?stream", method: "POST")
        streamed.httpBodyStream = InputStream(data: Data("streamed body".utf8))
        let fromStream = try await fixture.queue.enqueue(streamed)
        try await fixture.queue.drain()
        for (id, sent) in [(fromOperation, "patched"), (fromStream, "streamed body")] {
            let outcome = try #require(try await fixture.queue.job(id)?.outcome)
            let responseBody = try #require(outcome.body)
            let echoed = try JSONSerialization.jsonObject(with: responseBody) as? [String: Any]
            #expect(echoed?["data"] as? String == sent)
        }
        // PATCH is not idempotent: the operation's request got a key too.
        #expect(fixture.server.requestLog.requests.first { $0.target.hasSuffix("operation") }?.header("Idempotency-Key") != nil)
    }

    @Test("a job given an id the store already has is not added again: the first is kept and sent once", arguments: QueueStoreKind.allCases)
    func aJobIDIsAddedOnce(store: QueueStoreKind) async throws {
        let fixture = try await QueueFixture.start(store: store)
        defer { Task { await fixture.stop() } }
        let id = UUID()
        let first = try fixture.request("/anything?chosen", method: "POST", body: Data("first".utf8))
        #expect(try await fixture.queue.enqueue(first, options: JobOptions(jobID: id)) == id)
        // Again, in a batch beside a new job, and with another body: the store keeps the job it has.
        let again = try fixture.request("/anything?chosen", method: "POST", body: Data("second".utf8))
        let ids = try await fixture.queue.enqueue([(again, JobOptions(jobID: id)), (try fixture.request("/anything?other"), JobOptions())])
        #expect(ids[0] == id)
        #expect(try await fixture.queue.jobs().count == 2)
        try await fixture.queue.drain()
        // And after it succeeded: still not added, not sent again.
        _ = try await fixture.queue.enqueue(first, options: JobOptions(jobID: id))
        try await fixture.queue.drain()
        let chosen = fixture.server.requestLog.requests.filter { $0.target.hasSuffix("chosen") }
        #expect(chosen.count == 1)
        let job = try #require(try await fixture.queue.job(id))
        #expect(job.state == .succeeded)
        let echoed = try JSONSerialization.jsonObject(with: try #require(job.outcome?.body)) as? [String: Any]
        #expect(echoed?["data"] as? String == "first")
    }

    @Test("a configuration's performer sends each attempt; what it returns or throws is retried or dead-lettered as the session's would be", arguments: QueueStoreKind.allCases)
    func aPerformerSendsTheAttempts(store: QueueStoreKind) async throws {
        /// Answers through the queue's own server with the session, the first attempt of each job with a 503 of its
        /// own making; throws for jobs whose URL says so.
        struct Flaky: JobPerformer {
            struct Refused: Error, CustomStringConvertible { var description: String { "refused by the performer" } }
            let session: URLSessionManager
            func perform(_ request: URLRequest, body: JobBody, job: QueuedJob) async throws -> JobResponse {
                if request.url?.query == "refuse" { throw Refused() }
                if job.attempts == 1, let url = request.url, let busy = HTTPURLResponse(url: url, statusCode: 503, httpVersion: nil, headerFields: [:]) {
                    return JobResponse(response: busy, body: Data("busy".utf8))
                }
                let (data, response) = try await session.data(for: request)
                return JobResponse(response: response, body: data.prefix(4), bodyByteCount: data.count)
            }
        }
        let fixture = try await QueueFixture.start(
            QueueConfiguration(retryPolicy: QueueFixture.policy(attempts: 3), performer: Flaky(session: URLSessionManager())), store: store)
        defer { Task { await fixture.stop() } }
        let sent = try await fixture.queue.enqueue(try fixture.request("/anything?sent"))
        let refused = try await fixture.queue.enqueue(try fixture.request("/anything?refuse"))
        try await fixture.queue.drain()
        let done = try #require(try await fixture.queue.job(sent))
        #expect(done.state == .succeeded && done.attempts == 2)
        #expect(done.outcome?.body?.count == 4 && (done.outcome?.bodyByteCount ?? 0) > 4)
        let dead = try #require(try await fixture.queue.job(refused))
        #expect(dead.state == .deadLettered && dead.attempts == 1)
        #expect(dead.outcome?.error?.description.contains("refused by the performer") == true, "\(String(describing: dead.outcome))")
        #expect(fixture.server.requestLog.count == 1)
    }

    @Test("jobs sharing an ordering key run one at a time, in the order enqueued; others run beside them", arguments: QueueStoreKind.allCases)
    func anOrderingKeyRunsItsJobsOneAtATime(store: QueueStoreKind) async throws {
        let fixture = try await QueueFixture.start(QueueConfiguration(
            maximumConcurrentJobs: 8, maximumConcurrentJobsPerHost: nil, retryPolicy: QueueFixture.policy()), store: store)
        defer { Task { await fixture.stop() } }
        let events = QueueEventLog(fixture.queue)
        var ordered: [UUID] = []
        var free: [UUID] = []
        for index in 0..<6 {
            ordered.append(try await fixture.queue.enqueue(
                try fixture.request("/delay/0.05?ordered=\(index)", method: "POST"), options: JobOptions(orderingKey: "account-7")))
            free.append(try await fixture.queue.enqueue(try fixture.request("/delay/0.05?free=\(index)")))
        }
        try await fixture.queue.drain()
        await events.waitFor(12) { if case .succeeded = $0 { true } else { false } }
        events.stop()

        let log = fixture.server.requestLog
        let orderedTargets = log.requests.map(\.target).filter { $0.contains("ordered=") }
        #expect(orderedTargets == (0..<6).map { "/delay/0.05?ordered=\($0)" })
        #expect(Set(events.events.compactMap { if case .succeeded(let id, _, _) = $0.event { id } else { nil } }) == Set(ordered + free))
        // Never two of the key's jobs at the server at once, counted where the requests arrive (the queue's events of
        // two jobs may come in either order when one ends as the next is claimed).
        #expect(log.mostAtOnce { $0.target.contains("ordered=") } == 1)
        #expect(log.mostAtOnce { $0.target.contains("free=") } > 1, "jobs without a key did not run side by side")
    }

    @Test("no more jobs run at once than the worker's and the host's limits", arguments: QueueStoreKind.allCases)
    func concurrencyLimitsHold(store: QueueStoreKind) async throws {
        for (worker, host, expected) in [(3, nil, 3), (8, 2, 2)] as [(Int, Int?, Int)] {
            let fixture = try await QueueFixture.start(QueueConfiguration(
                maximumConcurrentJobs: worker, maximumConcurrentJobsPerHost: host, retryPolicy: QueueFixture.policy()), store: store)
            let events = QueueEventLog(fixture.queue)
            for index in 0..<9 {
                try await fixture.queue.enqueue(try fixture.request("/delay/0.1?n=\(index)"))
            }
            try await fixture.queue.drain()
            await events.waitFor(9) { if case .succeeded = $0 { true } else { false } }
            events.stop()
            // Counted where the requests arrive: the queue's events of two jobs may come in either order when one ends
            // as the next is claimed (its slot is free once the store has recorded its end, before the event).
            let most = fixture.server.requestLog.mostAtOnce()
            #expect(most == expected, "worker limit \(worker), host limit \(String(describing: host))")
            #expect(fixture.server.requestLog.count == 9)
            await fixture.stop()
        }
    }

    @Test("a 503 with Retry-After: 1 is retried no sooner than a second later, then the job succeeds", arguments: QueueStoreKind.allCases)
    func retryAfterIsWaitedThenTheJobSucceeds(store: QueueStoreKind) async throws {
        let fixture = try await QueueFixture.start(store: store)
        defer { Task { await fixture.stop() } }
        let events = QueueEventLog(fixture.queue)
        let key = UUID().uuidString
        let id = try await fixture.queue.enqueue(try fixture.request("/flaky/2/\(key)?retry_after=1", method: "POST"))
        try await fixture.queue.drain()
        await events.waitFor(1) { if case .succeeded = $0 { true } else { false } }
        events.stop()
        let job = try #require(try await fixture.queue.job(id))
        #expect(job.state == .succeeded)
        #expect(job.attempts == 3)
        let starts = events.events.compactMap { entry -> Date? in
            if case .started = entry.event { return entry.at }
            return nil
        }
        #expect(starts.count == 3)
        for (earlier, later) in zip(starts, starts.dropFirst()) {
            #expect(later.timeIntervalSince(earlier) >= 0.95, "retried after \(later.timeIntervalSince(earlier)) s")
        }
        // Every attempt carried the same key.
        let keys = Set(fixture.server.requestLog.requests.compactMap { $0.header("Idempotency-Key") })
        #expect(keys == [try #require(job.request.headers["Idempotency-Key"])])
    }

    @Test("a 404 is dead-lettered at once; a 503 that never ends after the attempts allowed; both keep their last response", arguments: QueueStoreKind.allCases)
    func failuresAreDeadLettered(store: QueueStoreKind) async throws {
        let fixture = try await QueueFixture.start(QueueConfiguration(retryPolicy: QueueFixture.policy(attempts: 3)), store: store)
        defer { Task { await fixture.stop() } }
        let missing = try await fixture.queue.enqueue(try fixture.request("/status/404", method: "POST"))
        let down = try await fixture.queue.enqueue(try fixture.request("/status/503"))
        let refused = try await fixture.queue.enqueue(URLRequest(url: try #require(URL(string: "http://127.0.0.1:1/nothing"))))
        try await fixture.queue.drain()

        let notFound = try #require(try await fixture.queue.job(missing))
        #expect(notFound.state == .deadLettered)
        #expect(notFound.attempts == 1)
        #expect(notFound.outcome?.statusCode == 404)
        let unavailable = try #require(try await fixture.queue.job(down))
        #expect(unavailable.state == .deadLettered)
        #expect(unavailable.attempts == 3)
        #expect(unavailable.outcome?.statusCode == 503)
        let unreachable = try #require(try await fixture.queue.job(refused))
        #expect(unreachable.state == .deadLettered)
        #expect(unreachable.attempts == 3)
        #expect(unreachable.outcome?.statusCode == nil)
        #expect(unreachable.outcome?.error?.domain == NSURLErrorDomain)

        // Put back, they run again (and fail again the same way).
        let moved = try await fixture.queue.store.requeueDeadLettered([missing])
        #expect(moved == [missing])
        #expect(try await fixture.queue.job(missing)?.state == .pending)
        try await fixture.queue.drain()
        #expect(try await fixture.queue.job(missing)?.state == .deadLettered)
        #expect(fixture.server.requestLog.requests.filter { $0.target == "/status/404" }.count == 2)
        #expect(try await fixture.queue.store.purge([.deadLettered]) == 3)
        #expect(try await fixture.queue.jobs().isEmpty)
    }

    @Test("a job waits for its notBefore; one whose deadline passed is dead-lettered unsent", arguments: QueueStoreKind.allCases)
    func notBeforeAndDeadline(store: QueueStoreKind) async throws {
        let fixture = try await QueueFixture.start(store: store)
        defer { Task { await fixture.stop() } }
        let events = QueueEventLog(fixture.queue)
        let enqueued = Date()
        let later = try await fixture.queue.enqueue(
            try fixture.request("/anything?later"), options: JobOptions(notBefore: enqueued.addingTimeInterval(0.6)))
        let late = try await fixture.queue.enqueue(
            try fixture.request("/anything?late"), options: JobOptions(notBefore: enqueued.addingTimeInterval(0.6), deadline: enqueued.addingTimeInterval(0.3)))
        try await fixture.queue.drain()
        await events.waitFor(1) { if case .succeeded = $0 { true } else { false } }
        events.stop()
        #expect(try await fixture.queue.job(later)?.state == .succeeded)
        let started = try #require(events.events.first { if case .started(later, _) = $0.event { true } else { false } })
        #expect(started.at.timeIntervalSince(enqueued) >= 0.55)
        let dead = try #require(try await fixture.queue.job(late))
        #expect(dead.state == .deadLettered)
        #expect(dead.attempts == 0)
        #expect(dead.outcome?.error?.description.contains("deadline") == true)
        #expect(!fixture.server.requestLog.requests.contains { $0.target.hasSuffix("?late") })
    }

    @Test("a lease that runs out puts the job back; the first worker's late end is not recorded", arguments: QueueStoreKind.allCases)
    func anExpiredLeasePutsTheJobBack(store: QueueStoreKind) async throws {
        let fixture = try await QueueFixture.start(QueueConfiguration(leaseDuration: 0.5, pollInterval: 0.05, retryPolicy: QueueFixture.policy()), store: store)
        defer { Task { await fixture.stop() } }
        let id = try await fixture.queue.enqueue(try fixture.request("/anything?leased", method: "POST"))
        // A worker that claims the job and dies.
        let claim = try await fixture.queue.store.claim(JobClaim(
            worker: "dead-worker", limit: 10, perHostLimit: nil, now: Date(), leaseDuration: 0.5, online: true))
        let lease = try #require(claim.jobs.first?.lease)
        #expect(try await fixture.queue.job(id)?.state == .running)

        let started = Date()
        try await fixture.queue.drain()
        #expect(Date().timeIntervalSince(started) >= 0.4, "the job was taken before its lease ran out")
        let job = try #require(try await fixture.queue.job(id))
        #expect(job.state == .succeeded)
        #expect(job.attempts == 2)
        let late = JobOutcome(statusCode: 500, attempts: 1, finishedAt: Date())
        #expect(try await fixture.queue.store.resolve(lease, as: .deadLettered(late)) == false)
        #expect(try await fixture.queue.job(id)?.state == .succeeded)
    }

    @Test("a worker cancelled mid-attempt puts its job back, due at once, instead of dead-lettering it", arguments: QueueStoreKind.allCases)
    func aCancelledWorkerPutsItsJobBack(store: QueueStoreKind) async throws {
        let fixture = try await QueueFixture.start(store: store)
        defer { Task { await fixture.stop() } }
        let events = QueueEventLog(fixture.queue)
        let id = try await fixture.queue.enqueue(try fixture.request("/delay/5", method: "POST"))
        let worker = Task { try await fixture.queue.run() }
        await events.waitFor(1) { if case .started = $0 { true } else { false } }
        worker.cancel()
        try await worker.value
        events.stop()
        let job = try #require(try await fixture.queue.job(id))
        #expect(job.state == .pending)
        #expect(job.notBefore <= Date())
        #expect(!events.events.contains { if case .deadLettered = $0.event { true } else { false } })
    }

    @Test("jobs enqueued and acknowledged are there after the store is closed and opened again", arguments: QueueStoreKind.allCases)
    func jobsSurviveReopening(store: QueueStoreKind) async throws {
        let fixture = try await QueueFixture.start(store: store)
        defer { Task { await fixture.stop() } }
        let ids = try await fixture.queue.enqueue((0..<100).map { index in
            ((try? fixture.request("/anything?batch=\(index)", method: "POST", body: Data([UInt8(index)]))) ?? URLRequest(url: fixture.server.baseURL), JobOptions())
        })
        try await fixture.queue.store.close()
        let reopened = RequestQueue(store: try await fixture.openStore())
        defer { Task { try? await reopened.close() } }
        let pending = try await reopened.jobs(in: [.pending])
        #expect(pending.map(\.id) == ids)
        try await reopened.drain()
        #expect(try await reopened.jobs(in: [.succeeded]).count == 100)
        #expect(fixture.server.requestLog.count == 100)
    }
}
