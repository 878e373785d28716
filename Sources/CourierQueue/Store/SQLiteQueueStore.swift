import Courier
import Foundation
import Logging
import SQLiteNIO
import Synchronization

/// The embedded store: one SQLite file (sqlite-nio), with bodies over 64 KiB in a folder beside it
/// (`<file>.bodies/`).
///
/// **Durability.** The database runs in WAL mode with `synchronous=FULL`: SQLite flushes the log to the disk
/// (`fsync`) before a transaction's commit returns, so a job whose ``add(_:)`` returned is on the disk and
/// survives a crash of the process and a power loss (as far as the disk honours `fsync`). A body file is written,
/// flushed, renamed into place and its folder flushed before the job's row is added, so a row never names a body
/// that is not there.
///
/// **Processes.** Several processes on one machine may open the same file (SQLite locks it; a writer waits up to
/// 10 s for another); for workers on several machines use a server database.
public final class SQLiteQueueStore: QueueStore {
    /// The database file.
    public let path: String
    /// A body up to this many bytes is kept in the job's row; a longer one in a file. 64 KiB.
    public static let inlineBodyLimit = 64 * 1024

    private let connection: SQLiteConnection
    private let gate = SerialGate()
    private let bodies: URL
    private let closing = FirstCall()
    /// When the last claim looked through the whole table for rows no claim would take (see ``claim(_:)``).
    private let lastSweep = Mutex<Date?>(nil)
    /// How often a claim looks through the whole table: 1 s (the rest of a claim reads only due jobs by index).
    private static let sweepInterval: TimeInterval = 1

    private init(path: String, connection: SQLiteConnection) {
        self.path = path
        self.connection = connection
        self.bodies = URL(fileURLWithPath: path + ".bodies", isDirectory: true)
    }

    /// Opens (or creates) the store at `path`.
    /// - Throws: ``QueueStoreError/unreadableStore(path:reason:)`` when the file cannot be opened, is not an SQLite
    ///   database, or holds a newer schema.
    public static func open(path: String, logger: Logger = Logger(label: "courier.queue.sqlite")) async throws -> SQLiteQueueStore {
        let connection: SQLiteConnection
        do {
            connection = try await SQLiteConnection.open(storage: .file(path: path), logger: logger)
        } catch {
            throw QueueStoreError.unreadableStore(path: path, reason: Self.reason(error))
        }
        let store = SQLiteQueueStore(path: path, connection: connection)
        do {
            try await store.prepare()
        } catch {
            try? await connection.close()
            throw error
        }
        return store
    }

    private func prepare() async throws {
        do {
            // WAL lets readers go on while a worker writes; FULL flushes the log at every commit (see above).
            _ = try await connection.query("PRAGMA busy_timeout = 10000")
            _ = try await connection.query("PRAGMA journal_mode = WAL")
            _ = try await connection.query("PRAGMA synchronous = FULL")
            let version = try await connection.query("PRAGMA user_version").first?.column("user_version")
            if case .integer(let found)? = version, found > SQLiteSchema.version {
                throw QueueStoreError.unreadableStore(
                    path: path, reason: "its schema version is \(found); this Courier reads version \(SQLiteSchema.version)")
            }
            for statement in SQLiteSchema.statements {
                _ = try await connection.query(statement)
            }
            _ = try await connection.query("PRAGMA user_version = \(SQLiteSchema.version)")
        } catch let error as QueueStoreError {
            throw error
        } catch {
            throw QueueStoreError.unreadableStore(path: path, reason: Self.reason(error))
        }
    }

    // MARK: - Adding

    public func add(_ jobs: [NewJob]) async throws {
        guard !jobs.isEmpty else { return }
        // Bodies first, each durable before any row names it; a crash between leaves only an unnamed file.
        var rows: [[SQLiteData]] = []
        rows.reserveCapacity(jobs.count)
        for job in jobs {
            rows.append(try storeBody(of: job))
        }
        // Up to 64 rows a statement (768 parameters, far below SQLite's limit): each statement is a hop to sqlite-nio's
        // thread pool, so a batch costs a few hops and one commit, one flush.
        let statements = stride(from: 0, to: rows.count, by: 64).map { start in
            let chunk = rows[start..<min(rows.count, start + 64)]
            return (Self.insert(rows: chunk.count), Array(chunk.joined()))
        }
        try await gate.run {
            if statements.count == 1 {
                // One statement commits on its own: one flush, as a plain insert costs.
                _ = try await self.connection.query(statements[0].0, statements[0].1)
                return
            }
            try await self.transaction {
                for (sql, binds) in statements { _ = try await self.connection.query(sql, binds) }
            }
        }
    }

    /// The statement inserting `rows` rows (the one-row statement is made once).
    private static func insert(rows: Int) -> String {
        rows == 1 ? insertOne : makeInsert(rows: rows)
    }

    private static let insertOne = makeInsert(rows: 1)

    private static func makeInsert(rows: Int) -> String {
        let values = Array(repeating: "(?, 'pending', ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?)", count: rows).joined(separator: ", ")
        return """
            INSERT INTO courier_jobs (id, state, request, body, body_file, body_length, host, ordering_key, not_before,
                deadline, requires_network, attempts, enqueued_at, trace_context) VALUES \(values)
                ON CONFLICT (id) DO NOTHING
            """
    }

    /// Encodes outcomes and trace contexts (one for the store: making one costs more than encoding; requests are
    /// `StoredRequestJSON`'s).
    private let encoder = JSONEncoder()

    /// The row's values for `job`, after writing a long body to its file.
    private func storeBody(of job: NewJob) throws -> [SQLiteData] {
        var inline: SQLiteData = .null
        var file: SQLiteData = .null
        var length: Int64 = 0
        switch job.body {
        case .none:
            break
        case .data(let data) where data.count <= Self.inlineBodyLimit:
            inline = .blob(ByteBuffer(bytes: data))
            length = Int64(data.count)
        case .data(let data):
            try makeBodiesFolder()
            try Self.durably(bodyURL(job.id)) { url throws(PrivateFile.Failure) in try PrivateFile.replace(url, with: data, durable: true) }
            file = .text(job.id.uuidString)
            length = Int64(data.count)
        case .file(let source):
            try makeBodiesFolder()
            try Self.durably(bodyURL(job.id)) { url throws(PrivateFile.Failure) in
                length = try PrivateFile.replace(url, copying: source, durable: true)
            }
            file = .text(job.id.uuidString)
        }
        let notBefore = job.options.notBefore ?? job.enqueuedAt
        return [
            .text(job.id.uuidString), .blob(ByteBuffer(bytes: try StoredRequestJSON.encode(job.request))), inline, file,
            .integer(.init(length)), .text(job.host), job.options.orderingKey.map { .text($0) } ?? .null,
            .float(notBefore.timeIntervalSince1970), job.options.deadline.map { .float($0.timeIntervalSince1970) } ?? .null,
            .integer(job.options.requiresNetwork ? 1 : 0), .float(job.enqueuedAt.timeIntervalSince1970),
            job.traceContext.isEmpty ? .null : .blob(ByteBuffer(bytes: try encoder.encode(job.traceContext))),
        ]
    }

    /// Makes the bodies' folder when missing, and flushes its parent so that the folder itself survives a power loss.
    private func makeBodiesFolder() throws {
        guard !FileManager.default.fileExists(atPath: bodies.path) else { return }
        do {
            try FileManager.default.createDirectory(at: bodies, withIntermediateDirectories: true)
        } catch {
            throw QueueStoreError.bodyNotStored(path: bodies.path, reason: error.localizedDescription)
        }
        try Self.durably(bodies.deletingLastPathComponent()) { folder throws(PrivateFile.Failure) in try PrivateFile.flushFolder(folder) }
    }

    /// Runs a write of Courier's durable files on `url`, its failure as ``QueueStoreError/bodyNotStored(path:reason:)``.
    private static func durably(_ url: URL, _ write: (URL) throws(PrivateFile.Failure) -> Void) throws(QueueStoreError) {
        do throws(PrivateFile.Failure) {
            try write(url)
        } catch {
            throw .bodyNotStored(path: url.path, reason: error.reason)
        }
    }

    private func bodyURL(_ id: UUID) -> URL {
        bodies.appendingPathComponent(id.uuidString)
    }

    // MARK: - Claiming

    public func claim(_ claim: JobClaim) async throws -> ClaimResult {
        let now = claim.now.timeIntervalSince1970
        return try await gate.run {
            try await self.transaction {
                // A worker that died leaves its jobs running: their leases run out and they go back.
                _ = try await self.connection.query("""
                    UPDATE courier_jobs SET state = 'pending', lease_token = NULL, lease_worker = NULL, lease_expires = NULL
                    WHERE state = 'running' AND (typeof(lease_expires) NOT IN ('real', 'integer') OR lease_expires <= ?)
                    """, [.float(now)])
                var deadLettered: [(id: UUID?, error: QueueStoreError)] = []
                // The sweeps read every row, so they run at most once a second; between them, a claim skips jobs past
                // their deadline (the next sweep dead-letters them) and reads due jobs only.
                let sweeps = self.lastSweep.withLock { last in
                    guard last.map({ claim.now.timeIntervalSince($0) >= Self.sweepInterval || claim.now < $0 }) ?? true else { return false }
                    last = claim.now
                    return true
                }
                if sweeps {
                    try await self.deadLetterUnschedulable(into: &deadLettered)
                    try await self.deadLetterPastDeadlines(now: claim.now, into: &deadLettered)
                }
                var running: [String: Int] = [:]
                if claim.perHostLimit != nil {
                    for row in try await self.connection.query(
                        "SELECT host, COUNT(*) AS count FROM courier_jobs INDEXED BY courier_jobs_queue WHERE state = 'running' GROUP BY host")
                    {
                        if case .text(let host)? = row.column("host"), case .integer(let count)? = row.column("count") {
                            running[host] = Int(count)
                        }
                    }
                }
                // Due jobs in order; of an ordering key's jobs only the earliest unfinished one. Walked by the queue
                // index (SQLite would otherwise read every due job by date and sort them all for each claim).
                let candidates = try await self.connection.query("""
                    SELECT \(SQLiteSchema.columns) FROM courier_jobs AS j INDEXED BY courier_jobs_queue
                    WHERE state = 'pending' AND not_before <= ? AND (deadline IS NULL OR deadline >= ?) AND (? OR requires_network = 0)
                      AND (ordering_key IS NULL OR NOT EXISTS (
                        SELECT 1 FROM courier_jobs AS o WHERE o.ordering_key = j.ordering_key AND o.sequence < j.sequence
                          AND o.state IN ('pending', 'running')))
                    ORDER BY sequence LIMIT ?
                    """, [.float(now), .float(now), .integer(claim.online ? 1 : 0), .integer(claim.limit * (claim.perHostLimit == nil ? 1 : 8))])
                var claimed: [ClaimedJob] = []
                for row in candidates where claimed.count < claim.limit {
                    let stored: StoredJob
                    do throws(QueueStoreError) {
                        stored = try SQLiteJobRow.read(row)
                    } catch {
                        try await self.deadLetterUnreadable(row, error, at: claim.now)
                        deadLettered.append((UUID(uuidString: row.column("id")?.string ?? ""), error))
                        continue
                    }
                    var job = stored.job
                    guard let host = row.column("host")?.string else { continue }
                    if let limit = claim.perHostLimit {
                        guard running[host, default: 0] < limit else { continue }
                        running[host, default: 0] += 1
                    }
                    let body: JobBody
                    if stored.bodyFile != nil {
                        let url = self.bodyURL(job.id)
                        guard FileManager.default.fileExists(atPath: url.path) else {
                            let error = QueueStoreError.bodyFileMissing(id: job.id, path: url.path)
                            try await self.deadLetterUnreadable(row, error, at: claim.now)
                            deadLettered.append((job.id, error))
                            continue
                        }
                        body = .file(url)
                    } else {
                        body = stored.inlineBody.map { .data($0) } ?? .none
                    }
                    let token = UUID().uuidString
                    _ = try await self.connection.query("""
                        UPDATE courier_jobs SET state = 'running', attempts = attempts + 1, lease_token = ?, lease_worker = ?,
                            lease_expires = ? WHERE sequence = ?
                        """, [.text(token), .text(claim.worker), .float(now + claim.leaseDuration), .integer(.init(job.sequence))])
                    job.state = .running
                    job.attempts += 1
                    claimed.append(ClaimedJob(
                        job: job, lease: JobLease(jobID: job.id, token: token), body: body, traceContext: stored.traceContext))
                }
                return ClaimResult(jobs: claimed, deadLettered: deadLettered)
            }
        }
    }

    /// Rows no claim would ever take or finish: a state no queue writes, or a pending job whose schedule columns are
    /// not numbers (SQLite orders text after every number, so such a job would wait forever). Dead-lettered, naming
    /// the column, so that they are seen and do not hold a drain or an ordering key.
    private func deadLetterUnschedulable(into deadLettered: inout [(id: UUID?, error: QueueStoreError)]) async throws {
        let rows = try await connection.query("""
            SELECT \(SQLiteSchema.columns) FROM courier_jobs
            WHERE state NOT IN ('pending', 'running', 'succeeded', 'dead')
               OR (state = 'pending' AND (typeof(not_before) NOT IN ('real', 'integer') OR typeof(attempts) != 'integer'
                   OR (deadline IS NOT NULL AND typeof(deadline) NOT IN ('real', 'integer'))))
            """)
        for row in rows {
            let id = row.column("id")?.string ?? "?"
            var error = QueueStoreError.invalidJob(id: id, field: "state", reason: "is not a job state")
            do throws(QueueStoreError) {
                _ = try SQLiteJobRow.read(row)
            } catch let found {
                error = found
            }
            try await deadLetterUnreadable(row, error, at: Date())
            deadLettered.append((UUID(uuidString: id), error))
        }
    }

    private func deadLetterPastDeadlines(now: Date, into deadLettered: inout [(id: UUID?, error: QueueStoreError)]) async throws {
        let rows = try await connection.query(
            "SELECT sequence, id, attempts, deadline FROM courier_jobs WHERE state = 'pending' AND deadline IS NOT NULL AND deadline < ?",
            [.float(now.timeIntervalSince1970)])
        for row in rows {
            guard let id = UUID(uuidString: row.column("id")?.string ?? ""), case .float(let seconds)? = row.column("deadline") else {
                try await deadLetterUnreadable(row, .invalidJob(id: row.column("id")?.string ?? "?", field: "deadline", reason: "is not a date"), at: now)
                continue
            }
            let error = QueueStoreError.deadlinePassed(id: id, deadline: Date(timeIntervalSince1970: seconds))
            try await deadLetterUnreadable(row, error, at: now)
            deadLettered.append((id, error))
        }
    }

    /// Dead-letters the job in `row` with `error` as its outcome, by its sequence number (which SQLite keeps).
    private func deadLetterUnreadable(_ row: SQLiteRow, _ error: QueueStoreError, at now: Date) async throws {
        guard case .integer(let sequence)? = row.column("sequence") else { return }
        var attempts = 0
        if case .integer(let count)? = row.column("attempts"), (0...Int64(StoredJobRecord.maximumAttempts)).contains(Int64(count)) {
            attempts = Int(count)
        }
        let outcome = JobOutcome(error: OperationArchive.ErrorRecord(error), attempts: attempts, finishedAt: now)
        _ = try await connection.query("""
            UPDATE courier_jobs SET state = 'dead', outcome = ?, lease_token = NULL, lease_worker = NULL, lease_expires = NULL
            WHERE sequence = ?
            """, [.blob(ByteBuffer(bytes: try JSONEncoder().encode(outcome))), .integer(sequence)])
    }

    // MARK: - Leases and outcomes

    public func renew(_ leases: [JobLease], until: Date) async throws {
        guard !leases.isEmpty else { return }
        try await gate.run {
            try await self.transaction {
                for lease in leases {
                    _ = try await self.connection.query(
                        "UPDATE courier_jobs SET lease_expires = ? WHERE id = ? AND lease_token = ? AND state = 'running'",
                        [.float(until.timeIntervalSince1970), .text(lease.jobID.uuidString), .text(lease.token)])
                }
            }
        }
    }

    public func resolve(_ lease: JobLease, as resolution: JobResolution) async throws -> Bool {
        let state: String
        let outcome: JobOutcome
        var notBefore: Date?
        switch resolution {
        case .succeeded(let value): (state, outcome) = ("succeeded", value)
        case .deadLettered(let value): (state, outcome) = ("dead", value)
        case .retry(let date, let value): (state, outcome, notBefore) = ("pending", value, date)
        }
        let encoded = try encoder.encode(outcome)
        return try await gate.run {
            let rows = try await self.connection.query("""
                UPDATE courier_jobs SET state = ?, outcome = ?, not_before = COALESCE(?, not_before),
                    lease_token = NULL, lease_worker = NULL, lease_expires = NULL
                WHERE id = ? AND lease_token = ? AND state = 'running' RETURNING sequence
                """, [.text(state), .blob(ByteBuffer(bytes: encoded)), notBefore.map { .float($0.timeIntervalSince1970) } ?? .null,
                      .text(lease.jobID.uuidString), .text(lease.token)])
            return !rows.isEmpty
        }
    }

    // MARK: - Reading and managing

    public func jobs(in states: Set<JobState>, limit: Int) async throws -> [QueuedJob] {
        guard !states.isEmpty else { return [] }
        let list = states.map { "'\($0.rawValue)'" }.sorted().joined(separator: ", ")
        let rows = try await gate.run {
            try await self.connection.query(
                "SELECT \(SQLiteSchema.columns) FROM courier_jobs WHERE state IN (\(list)) ORDER BY sequence LIMIT ?",
                [.integer(max(0, limit))])
        }
        // A row that cannot be read is left out here; the next claim dead-letters it, naming it.
        return rows.compactMap { try? SQLiteJobRow.read($0).job }
    }

    public func job(_ id: UUID) async throws -> QueuedJob? {
        let rows = try await gate.run {
            try await self.connection.query(
                "SELECT \(SQLiteSchema.columns) FROM courier_jobs WHERE id = ?", [.text(id.uuidString)])
        }
        guard let row = rows.first else { return nil }
        return try SQLiteJobRow.read(row).job
    }

    public func schedule(now: Date) async throws -> QueueSchedule {
        let rows = try await gate.run {
            try await self.connection.query("""
                SELECT state, COUNT(*) AS count, MIN(CASE WHEN not_before > ? THEN not_before END) AS due,
                    MIN(enqueued_at) AS oldest
                FROM courier_jobs WHERE state IN ('pending', 'running') GROUP BY state
                """, [.float(now.timeIntervalSince1970)])
        }
        var schedule = QueueSchedule(pending: 0, running: 0, nextDue: nil, oldestEnqueuedAt: nil)
        for row in rows {
            guard case .text(let state)? = row.column("state"), case .integer(let count)? = row.column("count") else { continue }
            let oldest = Self.date(row.column("oldest"))
            if let oldest, schedule.oldestEnqueuedAt.map({ oldest < $0 }) ?? true { schedule.oldestEnqueuedAt = oldest }
            if state == "pending" {
                schedule.pending = Int(count)
                schedule.nextDue = Self.date(row.column("due"))
            } else {
                schedule.running = Int(count)
            }
        }
        return schedule
    }

    public func requeueDeadLettered(_ ids: [UUID]?) async throws -> [UUID] {
        let now = Date().timeIntervalSince1970
        let rows = try await gate.run {
            try await self.transaction {
                var found: [SQLiteRow] = []
                let update = "UPDATE courier_jobs SET state = 'pending', attempts = 0, not_before = ?, outcome = NULL WHERE state = 'dead'"
                if let ids {
                    for id in ids {
                        found += try await self.connection.query(update + " AND id = ? RETURNING id", [.float(now), .text(id.uuidString)])
                    }
                } else {
                    found = try await self.connection.query(update + " RETURNING id", [.float(now)])
                }
                return found
            }
        }
        return rows.compactMap { $0.column("id")?.string.flatMap(UUID.init(uuidString:)) }
    }

    public func purge(_ states: Set<JobState>) async throws -> Int {
        let removable = states.subtracting([.running])
        guard !removable.isEmpty else { return 0 }
        let list = removable.map { "'\($0.rawValue)'" }.sorted().joined(separator: ", ")
        let rows = try await gate.run {
            try await self.connection.query("DELETE FROM courier_jobs WHERE state IN (\(list)) RETURNING id, body_file")
        }
        for row in rows {
            // Only a file named by a well-formed id is removed: a row cannot name another file.
            if case .text(let name)? = row.column("body_file"), let id = UUID(uuidString: name) {
                try? FileManager.default.removeItem(at: bodyURL(id))
            }
        }
        return rows.count
    }

    public func close() async throws {
        guard closing.isFirst() else { return }
        try await gate.run { try await self.connection.close() }
    }

    // MARK: - Support

    /// Runs `body` between `BEGIN IMMEDIATE` (the write lock taken at once, so two processes never deadlock
    /// upgrading a read) and `COMMIT`, or rolls back when it throws. The caller holds the gate.
    private func transaction<Result: Sendable>(_ body: () async throws -> Result) async throws -> Result {
        _ = try await connection.query("BEGIN IMMEDIATE")
        do {
            let result = try await body()
            _ = try await connection.query("COMMIT")
            return result
        } catch {
            _ = try? await connection.query("ROLLBACK")
            throw error
        }
    }

    private static func date(_ value: SQLiteData?) -> Date? {
        switch value {
        case .float(let seconds)? where seconds.isFinite: Date(timeIntervalSince1970: seconds)
        case .integer(let seconds)?: Date(timeIntervalSince1970: Double(seconds))
        default: nil
        }
    }

    private static func reason(_ error: any Error) -> String {
        (error as? SQLiteError)?.message ?? String(describing: error)
    }
}
