import Courier
import CourierQueue
import CourierQueuePostgres
import Foundation
import SQLiteNIO
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// `bench-queue enqueue [COUNT]`: jobs enqueued per second on the SQLite store (WAL, synchronous=FULL), one per call
// and in batches of 100, against the floor: raw sqlite-nio inserts of rows of the same size with the same settings,
// on the same disk ($TMPDIR), autocommitted one by one and committed 100 at a time.
// `bench-queue drain URL [COUNT]`: COUNT small POSTs to URL drained through the SQLite store with 8 at once, against
// the same POSTs sent directly through a Courier session with 8 at once: jobs per second and client CPU per job.
// With a third argument, a postgres:// URL, the same jobs are drained through the PostgreSQL store by 4 workers (each
// its own store and connections, 2 jobs at once each) in this process; the server's CPU is its own, not counted.

let arguments = CommandLine.arguments
guard arguments.count >= 2 else {
    FileHandle.standardError.write(Data("usage: bench-queue enqueue [COUNT] | drain URL [COUNT [POSTGRES_URL]]\n".utf8))
    exit(2)
}

func temporaryStore() -> String {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("bench-queue-\(UUID().uuidString)")
    try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    return folder.appendingPathComponent("queue.sqlite").path
}

func removeStore(_ path: String) {
    try? FileManager.default.removeItem(at: URL(fileURLWithPath: path).deletingLastPathComponent())
}

/// Seconds `body` takes.
func timed(_ body: () async throws -> Void) async rethrows -> Double {
    let start = ContinuousClock.now
    try await body()
    let elapsed = ContinuousClock.now - start
    return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
}

/// Raw sqlite-nio inserts into the store's table, on a connection with the store's settings: the floor.
struct RawInserts {
    let path = temporaryStore()
    let connection: SQLiteConnection
    // A stored request of the size the queue writes for the benchmark's POST (its JSON, with an Idempotency-Key).
    let request = ByteBuffer(bytes: Array(repeating: UInt8(ascii: "r"), count: 170))
    let body = ByteBuffer(bytes: Array(repeating: UInt8(ascii: "b"), count: 64))
    let insert = """
        INSERT INTO courier_jobs (id, state, request, body, body_file, body_length, host, ordering_key, not_before,
            deadline, requires_network, attempts, enqueued_at, trace_context) VALUES (?, 'pending', ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?)
        """

    init() async throws {
        connection = try await SQLiteConnection.open(storage: .file(path: path))
        for pragma in ["PRAGMA journal_mode = WAL", "PRAGMA synchronous = FULL"] { _ = try await connection.query(pragma) }
        // The store's table and indexes (what any durable queue row needs), so that the floor measures SQLite's own
        // work for the same rows and the ratio measures Courier's code around it.
        for statement in [
            """
            CREATE TABLE courier_jobs (sequence INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, state TEXT NOT NULL,
                request BLOB NOT NULL, body BLOB, body_file TEXT, body_length INTEGER NOT NULL, host TEXT NOT NULL, ordering_key TEXT,
                not_before REAL NOT NULL, deadline REAL, requires_network INTEGER NOT NULL, attempts INTEGER NOT NULL DEFAULT 0,
                lease_token TEXT, lease_worker TEXT, lease_expires REAL, enqueued_at REAL NOT NULL, outcome BLOB, trace_context BLOB)
            """,
            "CREATE INDEX courier_jobs_queue ON courier_jobs (state, sequence)",
            "CREATE INDEX courier_jobs_due ON courier_jobs (state, not_before)",
            "CREATE INDEX courier_jobs_ordering ON courier_jobs (ordering_key, sequence) WHERE ordering_key IS NOT NULL",
        ] {
            _ = try await connection.query(statement)
        }
    }

    /// `count` rows, committed `batch` at a time.
    func run(count: Int, batch: Int) async throws {
        for start in stride(from: 0, to: count, by: batch) {
            if batch > 1 { _ = try await connection.query("BEGIN IMMEDIATE") }
            for _ in start..<min(count, start + batch) {
                let now = Date().timeIntervalSince1970
                _ = try await connection.query(insert, [
                    .text(UUID().uuidString), .blob(request), .blob(body), .null, .integer(64), .text("127.0.0.1"), .null,
                    .float(now), .null, .integer(0), .float(now), .null,
                ])
            }
            if batch > 1 { _ = try await connection.query("COMMIT") }
        }
    }

    func close() async throws {
        try await connection.close()
        removeStore(path)
    }
}

/// The same rows through `RequestQueue.enqueue` on the SQLite store.
struct QueueEnqueues {
    let path = temporaryStore()
    let queue: RequestQueue
    let request: URLRequest

    init() async throws {
        queue = RequestQueue(store: try await SQLiteQueueStore.open(path: path))
        var request = URLRequest(url: URL(string: "http://127.0.0.1:8080/anything")!)
        request.httpMethod = "POST"
        request.httpBody = Data(repeating: UInt8(ascii: "b"), count: 64)
        self.request = request
    }

    /// `count` jobs, `batch` to a call.
    func run(count: Int, batch: Int) async throws {
        for start in stride(from: 0, to: count, by: batch) {
            if batch == 1 {
                try await queue.enqueue(request)
            } else {
                try await queue.enqueue(Array(repeating: (request, JobOptions()), count: min(batch, count - start)))
            }
        }
    }

    func close() async throws {
        try await queue.close()
        removeStore(path)
    }
}

func enqueueBenchmark(count: Int) async throws {
    print("enqueue, SQLite WAL synchronous=FULL, \(count) jobs, in \(FileManager.default.temporaryDirectory.path)")
    // A virtual disk's flush time wanders by more than the difference measured: the floor and the queue take turns in
    // blocks of 200 rows on stores open side by side, so both see the same disk, and each round's ratio is of their
    // summed times; the median of five rounds is reported.
    for batch in [1, 100] {
        var floors: [Double] = []
        var queued: [Double] = []
        var ratios: [Double] = []
        for _ in 0..<5 {
            let raw = try await RawInserts()
            let queue = try await QueueEnqueues()
            var rawSeconds = 0.0
            var queueSeconds = 0.0
            for _ in stride(from: 0, to: count, by: 200) {
                rawSeconds += try await timed { try await raw.run(count: 200, batch: batch) }
                queueSeconds += try await timed { try await queue.run(count: 200, batch: batch) }
            }
            try await raw.close()
            try await queue.close()
            let rounded = Double((count + 199) / 200 * 200)
            floors.append(rounded / rawSeconds)
            queued.append(rounded / queueSeconds)
            ratios.append(rawSeconds / queueSeconds)
        }
        let label = batch == 1 ? "one per commit" : "100 per commit"
        print(String(format: "  %@: raw sqlite-nio %.0f/s, RequestQueue %.0f/s (%.2f× the floor; medians of 5 interleaved rounds)",
                     label, floors.sorted()[2], queued.sorted()[2], ratios.sorted()[2]))
    }
}

/// Drains `count` copies of `request` through the PostgreSQL store at `database` with 4 workers; seconds and CPU µs.
func postgresDrain(database: String, request: URLRequest, session: URLSessionManager, count: Int) async throws -> (Double, Int64) {
    let enqueuer = RequestQueue(store: try await PostgresQueueStore.open(url: database), session: session)
    for start in stride(from: 0, to: count, by: 1000) {
        try await enqueuer.enqueue(Array(repeating: (request, JobOptions()), count: min(1000, count - start)))
    }
    var workers: [RequestQueue] = []
    for index in 0..<4 {
        workers.append(RequestQueue(
            store: try await PostgresQueueStore.open(url: database), session: session,
            configuration: QueueConfiguration(maximumConcurrentJobs: 2, maximumConcurrentJobsPerHost: 8), name: "worker-\(index)"))
    }
    let started = ProcessUsage.now()
    let seconds = try await timed {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in workers { group.addTask { try await worker.drain() } }
            try await group.waitForAll()
        }
    }
    let cpu = ProcessUsage.now().cpuMicroseconds - started.cpuMicroseconds
    for worker in workers { try await worker.close() }
    let succeeded = try await enqueuer.jobs(in: [.succeeded], limit: .max).count
    _ = try await enqueuer.store.purge([.succeeded, .deadLettered])
    try await enqueuer.close()
    guard succeeded == count else {
        print("only \(succeeded) of \(count) jobs succeeded on PostgreSQL")
        exit(1)
    }
    return (seconds, cpu)
}

func drainBenchmark(url: URL, count: Int, postgres: String?) async throws {
    var post = URLRequest(url: url)
    post.httpMethod = "POST"
    post.httpBody = Data("{\"n\":1}".utf8)
    let request = post
    let body = Data("{\"n\":1}".utf8)
    let session = URLSessionManager()

    // Direct: the same requests through the session, 8 at a time.
    let directStart = ProcessUsage.now()
    let direct = try await timed {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<count {
                if index >= 8 { try await group.next() }
                group.addTask { _ = try await session.upload(for: request, from: body) }
            }
            try await group.waitForAll()
        }
    }
    let directCPU = ProcessUsage.now().cpuMicroseconds - directStart.cpuMicroseconds

    let path = temporaryStore()
    defer { removeStore(path) }
    let queue = RequestQueue(
        store: try await SQLiteQueueStore.open(path: path), session: session,
        configuration: QueueConfiguration(maximumConcurrentJobs: 8, maximumConcurrentJobsPerHost: 8))
    for start in stride(from: 0, to: count, by: 1000) {
        try await queue.enqueue(Array(repeating: (request, JobOptions()), count: min(1000, count - start)))
    }
    let queuedStart = ProcessUsage.now()
    let queued = try await timed { try await queue.drain() }
    let queuedCPU = ProcessUsage.now().cpuMicroseconds - queuedStart.cpuMicroseconds
    let succeeded = try await queue.jobs(in: [.succeeded], limit: .max).count
    try await queue.close()
    guard succeeded == count else {
        print("only \(succeeded) of \(count) jobs succeeded")
        exit(1)
    }
    print("drain of \(count) POSTs to \(url.absoluteString), 8 at once")
    print(String(format: "  direct through the session: %.0f requests/s, %.0f µs CPU each", Double(count) / direct, Double(directCPU) / Double(count)))
    print(String(format: "  through the SQLite queue:   %.0f jobs/s, %.0f µs CPU each (the queue's overhead: %.0f µs a job)",
                 Double(count) / queued, Double(queuedCPU) / Double(count), Double(queuedCPU - directCPU) / Double(count)))
    if let postgres {
        let (seconds, cpu) = try await postgresDrain(database: postgres, request: request, session: session, count: count)
        print(String(format: "  through PostgreSQL, 4 workers × 2: %.0f jobs/s, %.0f µs client CPU each (the queue's overhead: %.0f µs a job)",
                     Double(count) / seconds, Double(cpu) / Double(count), Double(cpu - directCPU) / Double(count)))
    }
}

switch arguments[1] {
case "enqueue":
    try await enqueueBenchmark(count: arguments.count > 2 ? Int(arguments[2]) ?? 2000 : 2000)
case "drain" where arguments.count > 2:
    guard let url = URL(string: arguments[2]) else { exit(2) }
    try await drainBenchmark(
        url: url, count: arguments.count > 3 ? Int(arguments[3]) ?? 10_000 : 10_000, postgres: arguments.count > 4 ? arguments[4] : nil)
default:
    FileHandle.standardError.write(Data("usage: bench-queue enqueue [COUNT] | drain URL [COUNT [POSTGRES_URL]]\n".utf8))
    exit(2)
}
