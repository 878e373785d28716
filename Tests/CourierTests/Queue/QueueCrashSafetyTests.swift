import Courier
import CourierQueue
import CourierTestServer
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `courier queue drain`, killed with SIGKILL at random points while it drains 1,000 POSTs and started again each
/// time: no job is lost, each ends succeeded, and a job reaches the server more than once only when a killed worker
/// had claimed it, always with the same `Idempotency-Key`.
@Suite("RequestQueue crash safety", .timeLimit(.minutes(4)))
struct QueueCrashSafetyTests {
    @Test("1,000 jobs, 20 SIGKILLs at random points: none lost, duplicates only for claimed jobs, one key each")
    func drainSurvivesKills() async throws {
        let fixture = try await QueueFixture.start()
        defer { Task { await fixture.stop() } }
        let count = 1000
        var requests: [(URLRequest, JobOptions)] = []
        for index in 0..<count {
            requests.append((try fixture.request("/anything?job=\(index)", method: "POST", body: Data("job \(index)".utf8)), JobOptions()))
        }
        let ids = try await fixture.queue.enqueue(requests)
        try await fixture.queue.store.close()

        let arguments = ["queue", "drain", fixture.path, "--lease", "1", "--poll", "0.05", "--concurrency", "8", "--per-host", "8"]
        var generator = SystemRandomNumberGenerator()
        var kills = 0
        var progress: [Int] = []
        for _ in 0..<20 {
            let child = try ChildProcess("courier", arguments)
            // Each run is killed at a random point after it has finished a job of its own (so every kill lands
            // mid-drain, however long the child takes to start on a loaded machine).
            try await child.waitFor(" succeeded ", timeout: .seconds(60))
            try await Task.sleep(for: .milliseconds(Int.random(in: 0...150, using: &generator)))
            let runningWhenKilled = child.processIsRunning
            child.send(SIGKILL)
            let outcome = try await child.finish(timeout: .seconds(30))
            if runningWhenKilled, outcome.terminatedBySignal { kills += 1 }
            progress.append(try await Self.finishedJobs(at: fixture.path))
        }
        // The kills landed while the drain was under way: each run finished jobs before it was killed, and some were
        // left for the last run.
        #expect(progress.last.map { $0 < count } == true, "the queue was drained before the last kill: \(progress)")
        #expect(zip(progress, progress.dropFirst()).allSatisfy { $0 < $1 }, "a run was killed before it finished a job: \(progress)")
        let last = try await ChildProcess.run("courier", arguments, timeout: .seconds(120))
        #expect(last.status == 0, "\(last.standardError)")
        #expect(kills == 20, "only \(kills) of the 20 runs were killed while draining")

        let store = try await SQLiteQueueStore.open(path: fixture.path)
        defer { Task { try? await store.close() } }
        let jobs = try await store.jobs(in: Set(JobState.allCases), limit: .max)
        #expect(jobs.count == count)
        #expect(jobs.allSatisfy { $0.state == .succeeded }, "\(jobs.filter { $0.state != .succeeded }.map { "\($0.id) \($0.state)" })")
        #expect(jobs.map(\.id) == ids)

        // What the server received, by job.
        var received: [String: [String?]] = [:]
        for request in fixture.server.requestLog.requests {
            guard let job = request.target.split(separator: "job=").last else { continue }
            received[String(job), default: []].append(request.header("Idempotency-Key"))
        }
        var duplicates = 0
        for (index, job) in jobs.enumerated() {
            let keys = received["\(index)"] ?? []
            #expect(!keys.isEmpty, "job \(index) never reached the server")
            let stored = job.request.headers["Idempotency-Key"]
            #expect(stored != nil)
            #expect(keys.allSatisfy { $0 == stored }, "job \(index) arrived with keys \(keys), stored \(String(describing: stored))")
            // More than one arrival only for a job claimed more than once (by a worker that was killed).
            #expect(keys.count <= job.attempts, "job \(index) arrived \(keys.count) times in \(job.attempts) claims")
            duplicates += keys.count - 1
        }
        print("queue crash safety: \(kills) kills, \(duplicates) duplicate arrivals of \(count) jobs; finished after each kill: \(progress)")
    }

    /// How many jobs of the store at `path` have finished, read by a connection of its own.
    private static func finishedJobs(at path: String) async throws -> Int {
        let store = try await SQLiteQueueStore.open(path: path)
        let finished = try await store.jobs(in: [.succeeded, .deadLettered], limit: .max).count
        try await store.close()
        return finished
    }
}
