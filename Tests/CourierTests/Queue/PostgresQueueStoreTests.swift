import Courier
import CourierQueue
import CourierQueuePostgres
import CourierTestServer
import Foundation
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What only the PostgreSQL store does, against a PostgreSQL cluster of the test's own (scripts/postgres-test-server):
/// several workers with connections of their own drain one queue, `courier queue drain` processes too; rows edited by
/// hand; URLs, servers and schemas it must refuse. (The queue's semantics on it are `RequestQueueTests`', run on each
/// store.)
@Suite("RequestQueue on PostgreSQL, many workers", .timeLimit(.minutes(4)))
struct PostgresQueueStoreTests {
    @Test("four workers, each on its own connections, drain one queue: every job sent once, keys in order, the host limit across them")
    func fourWorkersDrainOneQueue() async throws {
        let fixture = try await QueueFixture.start(store: .postgres)
        defer { Task { await fixture.stop() } }
        var requests: [(URLRequest, JobOptions)] = []
        for index in 0..<160 {
            requests.append((try fixture.request("/delay/0.01?free=\(index)", method: "POST"), JobOptions()))
        }
        for index in 0..<40 {
            requests.append((try fixture.request("/delay/0.01?key=\(index % 4)&ordered=\(index)", method: "POST"), JobOptions(orderingKey: "key-\(index % 4)")))
        }
        _ = try await fixture.queue.enqueue(requests)

        var workers: [RequestQueue] = []
        for index in 0..<4 {
            workers.append(RequestQueue(
                store: try await fixture.openStore(),
                configuration: QueueConfiguration(
                    maximumConcurrentJobs: 4, maximumConcurrentJobsPerHost: 3, pollInterval: 0.05, retryPolicy: QueueFixture.policy()),
                name: "worker-\(index)"))
        }
        let logs = workers.map(QueueEventLog.init)
        // The limit holds in the store: jobs are marked running from their claim to their outcome, so the database's
        // count of running jobs, read on a connection of its own while the workers drain, is at least what is in
        // flight. (Events from four workers' streams arrive out of order and cannot tell.)
        let observer = try await fixture.openStore()
        let sampler = sampleMaximum { (try? await observer.schedule(now: Date()).running) ?? 0 }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in workers { group.addTask { try await worker.drain() } }
            try await group.waitForAll()
        }
        sampler.cancel()
        let most = await sampler.value
        try await observer.close()
        for log in logs { await log.waitFor(1) { _ in true } }
        for log in logs { log.stop() }
        for worker in workers { try await worker.close() }

        // Every job reached the server exactly once and ended succeeded.
        let targets = fixture.server.requestLog.requests.map(\.target)
        #expect(targets.count == 200)
        #expect(Set(targets).count == 200)
        let jobs = try await fixture.queue.jobs(limit: 1000)
        #expect(jobs.count == 200)
        #expect(jobs.allSatisfy { $0.state == .succeeded && $0.attempts == 1 })
        // Each key's jobs arrived in the order enqueued.
        for key in 0..<4 {
            let arrived = targets.filter { $0.contains("key=\(key)&") }
            #expect(arrived == (0..<40).filter { $0 % 4 == key }.map { "/delay/0.01?key=\(key)&ordered=\($0)" })
        }
        // The host's limit was reached and never passed across the four workers; more than one worker took part.
        #expect(most == 3, "\(most) jobs ran at once for one host")
        let busy = logs.filter { log in log.events.contains { if case .started = $0.event { true } else { false } } }
        #expect(busy.count >= 2, "only \(busy.count) of the four workers ran jobs")
    }

    @Test("three `courier queue drain` processes drain one PostgreSQL queue: every job sent once")
    func drainProcessesShareAQueue() async throws {
        let fixture = try await QueueFixture.start(store: .postgres)
        defer { Task { await fixture.stop() } }
        let added = try await ChildProcess.run("courier", ["queue", "add", fixture.path, try fixture.url("/anything?from=cli").absoluteString, "-d", "hello"])
        #expect(added.status == 0, "\(added.standardError)")
        var requests: [(URLRequest, JobOptions)] = []
        for index in 0..<90 {
            requests.append((try fixture.request("/delay/0.02?job=\(index)", method: "POST"), JobOptions()))
        }
        _ = try await fixture.queue.enqueue(requests)
        let arguments = ["queue", "drain", fixture.path, "--poll", "0.05", "--concurrency", "4", "--per-host", "6"]
        let children = try (0..<3).map { _ in try ChildProcess("courier", arguments) }
        for child in children {
            let outcome = try await child.finish(timeout: .seconds(120))
            #expect(outcome.status == 0, "\(outcome.standardError)")
        }
        let targets = fixture.server.requestLog.requests.map(\.target)
        #expect(targets.count == 91)
        #expect(Set(targets).count == 91)
        let listed = try await ChildProcess.run("courier", ["queue", "list", fixture.path, "--state", "succeeded"])
        #expect(listed.status == 0, "\(listed.standardError)")
        #expect(listed.standardOutput.split(separator: "\n").filter { $0.contains("succeeded") }.count == 91)
    }

    @Test("three `courier queue drain` processes drain 10,000 jobs while one is killed midway: its jobs come back when its lease runs out; each end is recorded once")
    func aKilledWorkersJobsComeBack() async throws {
        let fixture = try await QueueFixture.start(store: .postgres)
        defer { Task { await fixture.stop() } }
        let count = 10_000
        for start in stride(from: 0, to: count, by: 1000) {
            var requests: [(URLRequest, JobOptions)] = []
            for index in start..<(start + 1000) {
                requests.append((try fixture.request("/anything?job=\(index)", method: "POST", body: Data("\(index)".utf8)), JobOptions()))
            }
            _ = try await fixture.queue.enqueue(requests)
        }
        let arguments = ["queue", "drain", fixture.path, "--lease", "2", "--poll", "0.05", "--concurrency", "8", "--per-host", "100"]
        let children = try (0..<3).map { _ in try ChildProcess("courier", arguments) }
        let victim = children[0]
        try await victim.waitFor(" succeeded ", timeout: .seconds(60))
        // Midway: a third of the jobs done.
        let midway = try await eventually(timeout: .seconds(120), every: .milliseconds(100)) {
            let done = Int(try await PostgresDatabases.run("SELECT count(*) FROM courier_jobs WHERE state = 'succeeded'", in: fixture.path)) ?? 0
            return done >= count / 3
        }
        try #require(midway, "a third of the jobs were not done within two minutes")
        victim.send(SIGKILL)
        // What it held when it died (its leases name it by host and process id).
        let held = try await PostgresDatabases.run(
            "SELECT id FROM courier_jobs WHERE state = 'running' AND lease_worker LIKE '%/\(victim.processIdentifier)'", in: fixture.path)
            .split(separator: "\n").compactMap { UUID(uuidString: String($0)) }
        let killed = try await victim.finish(timeout: .seconds(30))
        #expect(killed.terminatedBySignal)
        var outputs = [killed.standardOutput]
        for survivor in children.dropFirst() {
            let outcome = try await survivor.finish(timeout: .seconds(150))
            #expect(outcome.status == 0, "\(outcome.standardError)")
            outputs.append(outcome.standardOutput)
        }

        let jobs = try await fixture.queue.jobs(limit: .max)
        #expect(jobs.count == count)
        #expect(jobs.allSatisfy { $0.state == .succeeded }, "\(jobs.filter { $0.state != .succeeded }.count) jobs did not succeed")
        // The victim's jobs came back and were done again by the others.
        #expect(!held.isEmpty, "the killed worker held no jobs")
        let byID = Dictionary(uniqueKeysWithValues: jobs.map { ($0.id, $0) })
        for id in held { #expect((byID[id]?.attempts ?? 0) >= 2, "job \(id), held by the killed worker, ran once") }
        // Each end was recorded once: no job is reported succeeded by two workers. (The victim's last ends may not
        // have been printed: its printer follows its events, and it died with some recorded and not yet printed.)
        let reported = outputs.flatMap { $0.split(separator: "\n") }.filter { $0.contains(" succeeded ") }.map { $0.prefix(36) }
        #expect(Set(reported).count == reported.count, "\(reported.count - Set(reported).count) jobs reported twice")
        #expect(reported.count <= count)
        // At least once, with one key: a job arrived twice only when the victim held it. (The server's log keeps its
        // last 10,000 requests: with the victim's jobs sent again, the earliest may have left it.)
        let received = fixture.server.requestLog.count
        #expect(received >= count && received - count <= held.count, "\(received) requests for \(count) jobs, \(held.count) held by the victim")
        var missing = 0
        var arrivals: [String: [String?]] = [:]
        for request in fixture.server.requestLog.requests {
            guard let job = request.target.split(separator: "job=").last else { continue }
            arrivals[String(job), default: []].append(request.header("Idempotency-Key"))
        }
        let heldTargets = Set(held.compactMap { byID[$0]?.request.url?.query?.split(separator: "=").last.map(String.init) })
        for job in jobs {
            guard let index = job.request.url?.query?.split(separator: "=").last.map(String.init) else { continue }
            let keys = arrivals[index] ?? []
            if keys.isEmpty { missing += 1 }
            #expect(keys.allSatisfy { $0 == job.request.headers["Idempotency-Key"] }, "job \(index): keys \(keys)")
            if keys.count > 1 { #expect(heldTargets.contains(index), "job \(index) arrived \(keys.count) times, not held by the victim") }
        }
        #expect(missing <= max(0, received - RequestLog.capacity), "\(missing) jobs are not in the server's log of \(received) requests")
    }

    @Test("rows edited by hand are dead-lettered naming their column; the other jobs go on")
    func rowsEditedByHandAreDeadLettered() async throws {
        let fixture = try await QueueFixture.start(store: .postgres)
        defer { Task { await fixture.stop() } }
        var ids: [UUID] = []
        for index in 0..<5 {
            ids.append(try await fixture.queue.enqueue(try fixture.request("/anything?edited=\(index)", method: "POST")))
        }
        let edits = [
            "state = 'paused'", "request = '\\x7b7d'::bytea", "not_before = 'NaN'", "attempts = -5",
        ]
        for (edit, id) in zip(edits, ids) {
            try await PostgresDatabases.run("UPDATE courier_jobs SET \(edit) WHERE id = '\(id.uuidString)'", in: fixture.path)
        }
        try await fixture.queue.drain()
        for (field, id) in zip(["state", "request", "not_before", "attempts"], ids) {
            let state = try await PostgresDatabases.run("SELECT state FROM courier_jobs WHERE id = '\(id.uuidString)'", in: fixture.path)
            #expect(state == "dead", "job \(id) (\(field)) is \(state)")
            let outcome = try await PostgresDatabases.run(
                "SELECT convert_from(outcome, 'UTF8') FROM courier_jobs WHERE id = '\(id.uuidString)'", in: fixture.path)
            #expect(outcome.contains(field) && outcome.contains(id.uuidString), "job \(id): \(outcome)")
        }
        #expect(try await fixture.queue.job(ids[4])?.state == .succeeded)
        #expect(fixture.server.requestLog.count == 1)
    }

    @Test("a URL that names no database, a server that does not answer, a missing database and a newer schema are refused")
    func badStoresAreRefused() async throws {
        for url in ["postgres://127.0.0.1/queue", "postgres://courier@127.0.0.1:99999/queue", "postgres://courier@127.0.0.1/",
                    "postgres://courier@127.0.0.1/queue?sslmode=maybe"] {
            await #expect(throws: QueueStoreError.self, "\(url)") { _ = try await PostgresQueueStore.open(url: url) }
        }
        let fixture = try await QueueFixture.start(store: .postgres)
        defer { Task { await fixture.stop() } }
        // Nothing listens on port 9 of the loopback: refused within the timeout, naming the server.
        let started = ContinuousClock.now
        do {
            _ = try await PostgresQueueStore.open(url: "postgres://courier@127.0.0.1:9/queue?sslmode=disable", timeout: .seconds(2))
            Issue.record("a store opened on a port where nothing listens")
        } catch let error as QueueStoreError {
            #expect(error.description.contains("127.0.0.1:9"), "\(error)")
        }
        #expect(ContinuousClock.now - started < .seconds(5))
        // A database that does not exist: the server's words.
        let missing = fixture.path.replacingOccurrences(of: "/queue_", with: "/missing_")
        do {
            _ = try await PostgresQueueStore.open(url: missing)
            Issue.record("a store opened in a database that does not exist")
        } catch let error as QueueStoreError {
            #expect(error.description.contains("does not exist"), "\(error)")
        }
        // A schema a newer Courier wrote.
        try await PostgresDatabases.run("UPDATE courier_queue_schema SET version = 99", in: fixture.path)
        do {
            _ = try await PostgresQueueStore.open(url: fixture.path)
            Issue.record("a store of a newer schema opened")
        } catch let error as QueueStoreError {
            #expect(error.description.contains("schema version is 99"), "\(error)")
        }
    }
}
