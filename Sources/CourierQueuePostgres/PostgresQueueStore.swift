import Courier
import CourierQueue
import Foundation
import Logging
import NIOSSL
import PostgresNIO
import Synchronization

/// The server store: one PostgreSQL table (`courier_jobs`, made on first use) that many workers in many processes on
/// many machines drain together (vapor/postgres-nio).
///
/// **Claims.** A claim locks the due jobs it takes with `FOR UPDATE SKIP LOCKED`, so workers never wait for each
/// other's jobs and never take the same one. With a per-host limit (a `RequestQueue`'s default) a claim first takes
/// a transaction-level advisory lock, so that the count of a host's running jobs is exact across every worker;
/// claims then go one at a time, each a few milliseconds.
///
/// **Durability.** A job is durable when its transaction commits, as the server is set up to make commits durable:
/// with PostgreSQL's defaults (`fsync = on`, `synchronous_commit = on`) the commit waits for the write-ahead log to be
/// flushed, so a job whose ``add(_:)`` returned survives a crash of the server. Bodies are kept in their rows (up to
/// ``maximumBodySize``), so every machine can send them.
///
/// **Clocks.** Due dates and leases are compared with the workers' clocks: keep the machines' clocks in sync (NTP),
/// and leases well above the skew between them.
public final class PostgresQueueStore: QueueStore {
    /// The largest body a job may have: 64 MiB (a claimed job's body is read into memory).
    public static let maximumBodySize = 64 << 20

    /// The server and database, without the password: what errors name.
    public let location: String

    private let client: PostgresClient
    private let runner: Task<Void, Never>
    private let logger: Logger
    private let closing = FirstCall()
    /// When this store last looked through the whole table for rows no claim would take (see ``claim(_:)``).
    private let lastSweep = Mutex<Date?>(nil)
    /// How often a claim looks through the whole table: 1 s (the rest of a claim reads only due jobs by index).
    private static let sweepInterval: TimeInterval = 1

    private init(client: PostgresClient, location: String, logger: Logger) {
        self.client = client
        self.location = location
        self.logger = logger
        runner = Task { await client.run() }
    }

    /// Opens the store in the database `configuration` names, making its table when missing.
    /// - Parameters:
    ///   - configuration: The server, the credentials, the database and TLS.
    ///   - timeout: How long to wait for the server's first answer. Default 10 s.
    ///   - logger: Where postgres-nio's background events go. Default: a logger labelled `courier.queue.postgres`.
    /// - Throws: `QueueStoreError.unreadableStore(path:reason:)` (its path the server and database) when the server
    ///   does not answer, refuses the credentials, or holds a newer schema.
    public static func open(
        configuration: PostgresClient.Configuration, timeout: Duration = .seconds(10),
        logger: Logger = Logger(label: "courier.queue.postgres")
    ) async throws -> PostgresQueueStore {
        let location = Self.location(of: configuration)
        var configuration = configuration
        configuration.options.connectTimeout = min(configuration.options.connectTimeout, timeout)
        let store = PostgresQueueStore(client: PostgresClient(configuration: configuration, backgroundLogger: logger), location: location, logger: logger)
        do {
            try await withTimeout(timeout, location: location) { try await store.prepare() }
        } catch {
            try? await store.close()
            if let error = error as? QueueStoreError { throw error }
            throw QueueStoreError.unreadableStore(path: location, reason: Self.reason(error))
        }
        return store
    }

    /// Opens the store at a `postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE` URL (also `postgresql://`); `?sslmode=`
    /// `disable`, `prefer` (the default, as libpq's) or `require` (the server's certificate verified against the
    /// system's roots). One connection is made first, so that a refused login or a missing database fails at once in
    /// the server's words.
    /// - Throws: `QueueStoreError.unreadableStore(path:reason:)` for a URL that is not of that form, and as
    ///   ``open(configuration:timeout:logger:)``.
    public static func open(
        url: String, timeout: Duration = .seconds(10), logger: Logger = Logger(label: "courier.queue.postgres")
    ) async throws -> PostgresQueueStore {
        let endpoint = try DatabaseURL(url)
        do {
            try await withTimeout(timeout, location: endpoint.location) {
                let connection = try await PostgresConnection.connect(configuration: try endpoint.connectionConfiguration(), id: 0, logger: logger)
                try await connection.close()
            }
        } catch let error as QueueStoreError {
            throw error
        } catch {
            throw QueueStoreError.unreadableStore(path: endpoint.location, reason: reason(error))
        }
        return try await open(configuration: endpoint.clientConfiguration, timeout: timeout, logger: logger)
    }

    /// Whether `string` names a PostgreSQL database (`postgres://` or `postgresql://`) rather than a file.
    public static func isDatabaseURL(_ string: String) -> Bool {
        DatabaseURL.isDatabaseURL(string)
    }

    private static func location(of configuration: PostgresClient.Configuration) -> String {
        let database = configuration.database ?? configuration.username
        if let host = configuration.host {
            return "postgres://\(configuration.username)@\(host):\(configuration.port ?? 5432)/\(database)"
        }
        return "postgres://\(configuration.username)@\(configuration.unixSocketPath ?? "?")/\(database)"
    }

    /// Makes the table when missing. A database a queue already uses is only read: its DDL would wait for every
    /// transaction on the table, other workers' claims among them.
    private func prepare() async throws {
        let found = try await database { try await self.client.withConnection { try await self.checkedSchemaVersion(on: $0) } }
        if found == PostgresSchema.version { return }
        try await transaction { connection in
            // Two workers starting at once would race to make the table: one at a time (a lock of its own: claims take
            // the other, and a claim waiting for it while holding the table would deadlock).
            try await connection.all("SELECT pg_advisory_xact_lock(\(PostgresSchema.schemaLockKey))", logger: self.logger)
            guard try await self.checkedSchemaVersion(on: connection) == nil else { return }
            for statement in PostgresSchema.statements {
                try await connection.all(PostgresQuery(unsafeSQL: statement), logger: self.logger)
            }
            try await connection.all("INSERT INTO courier_queue_schema (version) VALUES (\(PostgresSchema.version))", logger: self.logger)
        }
    }

    /// The schema version the database holds (`nil`: no queue's table yet).
    /// - Throws: `QueueStoreError.unreadableStore(path:reason:)` for a version newer than this Courier reads.
    private func checkedSchemaVersion(on connection: PostgresConnection) async throws -> Int32? {
        let exists = try await connection.all("SELECT to_regclass('courier_queue_schema') IS NOT NULL", logger: logger)
        guard try exists.first?.decode(Bool.self) == true else { return nil }
        let versions = try await connection.all("SELECT max(version) FROM courier_queue_schema", logger: logger)
        guard let found = try versions.first?.decode(Int32?.self) else { return nil }
        guard found <= PostgresSchema.version else {
            throw QueueStoreError.unreadableStore(
                path: location, reason: "its schema version is \(found); this Courier reads version \(PostgresSchema.version)")
        }
        return found
    }

    // MARK: - Adding

    public func add(_ jobs: [NewJob]) async throws {
        guard !jobs.isEmpty else { return }
        // Up to 1,000 rows a statement (11,000 parameters, below the protocol's 65,535); a batch is one commit.
        var statements: [PostgresQuery] = []
        for start in stride(from: 0, to: jobs.count, by: 1000) {
            statements.append(try insert(jobs[start..<min(jobs.count, start + 1000)]))
        }
        if statements.count == 1 {
            try await database { _ = try await self.client.all(statements[0], logger: self.logger) }
            return
        }
        try await transaction { connection in
            for statement in statements { try await connection.all(statement, logger: self.logger) }
        }
    }

    /// The statement inserting `jobs`.
    private func insert(_ jobs: ArraySlice<NewJob>) throws -> PostgresQuery {
        var binds = PostgresBindings(capacity: jobs.count * 11)
        var values: [String] = []
        values.reserveCapacity(jobs.count)
        for job in jobs {
            let first = binds.count + 1
            try append(job, to: &binds)
            let placeholders = (first..<binds.count + 1).map { "$\($0)" }
            values.append("(\(placeholders[0]), 'pending', \(placeholders[1...].joined(separator: ", ")), 0)")
        }
        return PostgresQuery(unsafeSQL: """
            INSERT INTO courier_jobs (id, state, request, body, body_length, host, ordering_key, not_before, deadline,
                requires_network, enqueued_at, trace_context, attempts) VALUES \(values.joined(separator: ", "))
                ON CONFLICT (id) DO NOTHING
            """, binds: binds)
    }

    private let encoder = JSONEncoder()

    /// Appends the row's values for `job`: id, request, body, body length, host, ordering key, not before, deadline,
    /// requires network, enqueued at, trace context.
    private func append(_ job: NewJob, to binds: inout PostgresBindings) throws {
        let body: Data?
        switch job.body {
        case .none: body = nil
        case .data(let data): body = data
        case .file(let url):
            let size = FileStatus.size(atPath: url.path).map { Int($0) }
            if let size, size > Self.maximumBodySize { throw Self.tooLarge(size) }
            do {
                body = try Data(contentsOf: url)
            } catch {
                throw QueueStoreError.bodyNotStored(path: url.path, reason: error.localizedDescription)
            }
        }
        if let body, body.count > Self.maximumBodySize { throw Self.tooLarge(body.count) }
        binds.append(job.id)
        try binds.append(StoredRequestJSON.encode(job.request))
        try binds.append(body)
        binds.append(Int64(body?.count ?? 0))
        binds.append(job.host)
        binds.append(job.options.orderingKey)
        binds.append((job.options.notBefore ?? job.enqueuedAt).timeIntervalSince1970)
        binds.append(job.options.deadline?.timeIntervalSince1970)
        binds.append(job.options.requiresNetwork)
        binds.append(job.enqueuedAt.timeIntervalSince1970)
        try binds.append(job.traceContext.isEmpty ? nil : encoder.encode(job.traceContext))
    }

    private static func tooLarge(_ size: Int) -> QueueStoreError {
        .invalidRequest(reason: "its body (\(size) bytes) is larger than the PostgreSQL store keeps (\(maximumBodySize) bytes)")
    }

    // MARK: - Claiming

    public func claim(_ claim: JobClaim) async throws -> ClaimResult {
        let now = claim.now.timeIntervalSince1970
        let sweeps = lastSweep.withLock { last in
            guard last.map({ claim.now.timeIntervalSince($0) >= Self.sweepInterval || claim.now < $0 }) ?? true else { return false }
            last = claim.now
            return true
        }
        var deadLettered: [(id: UUID?, error: QueueStoreError)] = []
        if sweeps {
            try await transaction { connection in
                try await self.deadLetterUnschedulable(connection, into: &deadLettered)
                try await self.deadLetterPastDeadlines(connection, now: claim.now, into: &deadLettered)
            }
        }
        let token = UUID().uuidString
        var binds = PostgresBindings(capacity: 9)
        binds.append(now)
        binds.append(claim.online)
        binds.append(Int64(claim.limit * (claim.perHostLimit == nil ? 1 : 8)))
        binds.append(Int64(claim.perHostLimit ?? Int(Int32.max)))
        binds.append(Int64(claim.limit))
        binds.append(token)
        binds.append(claim.worker)
        binds.append(now + claim.leaseDuration)
        binds.append(claim.perHostLimit != nil)
        // One round trip, one transaction: `courier_claim` (PostgresSchema) puts expired leases back, takes the claims'
        // lock under a per-host limit, and marks the due jobs it takes running.
        return try await database {
            let rows = try await self.client.all(PostgresQuery(
                unsafeSQL: "SELECT \(PostgresSchema.columns), body FROM courier_claim($1, $2, $3, $4, $5, $6, $7, $8, $9)", binds: binds),
                logger: self.logger)
            var claimed: [ClaimedJob] = []
            for row in rows.sorted(by: { (Self.sequence(of: $0) ?? .max) < (Self.sequence(of: $1) ?? .max) }) {
                let body = try? row.makeRandomAccess()["body"].decode(Data?.self)
                do throws(QueueStoreError) {
                    // The row as claimed: running, its attempts counting this one.
                    let stored = try PostgresJobRow.read(row, body: body ?? nil)
                    if Int64((body ?? nil)?.count ?? 0) != stored.job.bodyByteCount {
                        throw QueueStoreError.invalidJob(
                            id: stored.job.id.uuidString, field: "body",
                            reason: "holds \((body ?? nil)?.count ?? 0) bytes, not the \(stored.job.bodyByteCount) recorded")
                    }
                    claimed.append(ClaimedJob(
                        job: stored.job, lease: JobLease(jobID: stored.job.id, token: token), body: (body ?? nil).map { .data($0) } ?? .none,
                        traceContext: stored.traceContext))
                } catch {
                    let attempts = (try? row.makeRandomAccess()["attempts"].decode(Int64.self)).map { Int(clamping: $0) } ?? 0
                    if let query = try Self.deadLetter(sequence: Self.sequence(of: row), error, attempts: attempts, at: claim.now) {
                        try await self.client.all(query, logger: self.logger)
                    }
                    deadLettered.append((try? row.makeRandomAccess()["id"].decode(UUID.self), error))
                }
            }
            return ClaimResult(jobs: claimed, deadLettered: deadLettered)
        }
    }

    private static func sequence(of row: PostgresRow) -> Int64? {
        try? row.makeRandomAccess()["sequence"].decode(Int64.self)
    }

    /// Rows no claim would ever take or finish: a state no queue writes, or a pending job whose dates are not dates
    /// (PostgreSQL's `NaN` sorts after every number, so such a job would wait forever). Dead-lettered, naming the
    /// column, so that they are seen and do not hold a drain or an ordering key.
    private func deadLetterUnschedulable(
        _ connection: PostgresConnection, into deadLettered: inout [(id: UUID?, error: QueueStoreError)]
    ) async throws {
        let rows = try await connection.all("""
            SELECT \(unescaped: PostgresSchema.columns) FROM courier_jobs
            WHERE state NOT IN ('pending', 'running', 'succeeded', 'dead')
               OR (state = 'pending' AND (NOT (not_before BETWEEN -3.2e11 AND 3.2e11)
                   OR (deadline IS NOT NULL AND NOT (deadline BETWEEN -3.2e11 AND 3.2e11))))
            """, logger: logger)
        for row in rows {
            let columns = row.makeRandomAccess()
            var error = QueueStoreError.invalidJob(id: "?", field: "state", reason: "is not a job state")
            do throws(QueueStoreError) {
                _ = try PostgresJobRow.read(row)
            } catch let found {
                error = found
            }
            try await deadLetter(connection, sequence: try? columns["sequence"].decode(Int64.self), error, attempts: 0, at: Date())
            deadLettered.append((try? columns["id"].decode(UUID.self), error))
        }
    }

    private func deadLetterPastDeadlines(
        _ connection: PostgresConnection, now: Date, into deadLettered: inout [(id: UUID?, error: QueueStoreError)]
    ) async throws {
        let rows = try await connection.all("""
            SELECT sequence, id, attempts, deadline FROM courier_jobs
            WHERE state = 'pending' AND deadline IS NOT NULL AND deadline < \(now.timeIntervalSince1970)
            """, logger: logger)
        var found: [(Int64, UUID, Int64, Double)] = []
        for row in rows { found.append(try row.decode((Int64, UUID, Int64, Double).self)) }
        for (sequence, id, attempts, deadline) in found {
            let error = QueueStoreError.deadlinePassed(id: id, deadline: Date(timeIntervalSince1970: deadline))
            try await deadLetter(connection, sequence: sequence, error, attempts: Int(clamping: attempts), at: now)
            deadLettered.append((id, error))
        }
    }

    /// Dead-letters the job numbered `sequence` with `error` as its outcome.
    private func deadLetter(
        _ connection: PostgresConnection, sequence: Int64?, _ error: QueueStoreError, attempts: Int, at now: Date
    ) async throws {
        guard let query = try Self.deadLetter(sequence: sequence, error, attempts: attempts, at: now) else { return }
        try await connection.all(query, logger: logger)
    }

    /// The statement dead-lettering the job numbered `sequence` (`nil` when there is none) with `error` as its outcome.
    private static func deadLetter(sequence: Int64?, _ error: QueueStoreError, attempts: Int, at now: Date) throws -> PostgresQuery? {
        guard let sequence else { return nil }
        let attempts = (0...StoredJobRecord.maximumAttempts).contains(attempts) ? attempts : 0
        let outcome = JobOutcome(error: OperationArchive.ErrorRecord(error), attempts: attempts, finishedAt: now)
        let encoded = try JSONEncoder().encode(outcome)
        let query: PostgresQuery = try """
            UPDATE courier_jobs SET state = 'dead', outcome = \(encoded), lease_token = NULL,
                lease_worker = NULL, lease_expires = NULL
            WHERE sequence = \(sequence)
            """
        return query
    }

    // MARK: - Leases and outcomes

    public func renew(_ leases: [JobLease], until: Date) async throws {
        guard !leases.isEmpty else { return }
        _ = try await database {
            try await self.client.all("""
                UPDATE courier_jobs AS j SET lease_expires = \(until.timeIntervalSince1970)
                FROM unnest(\(leases.map(\.jobID))::uuid[], \(leases.map(\.token))::text[]) AS l(id, token)
                WHERE j.id = l.id AND j.lease_token = l.token AND j.state = 'running'
                """, logger: self.logger)
        }
    }

    public func resolve(_ lease: JobLease, as resolution: JobResolution) async throws -> Bool {
        let state: String
        var notBefore: Double?
        switch resolution {
        case .succeeded: state = "succeeded"
        case .deadLettered: state = "dead"
        case .retry(let date, _): (state, notBefore) = ("pending", date.timeIntervalSince1970)
        }
        let outcome = try encoder.encode(resolution.outcome)
        return try await database {
            let rows = try await self.client.all("""
                UPDATE courier_jobs SET state = \(state), outcome = \(outcome), not_before = COALESCE(\(notBefore)::double precision, not_before),
                    lease_token = NULL, lease_worker = NULL, lease_expires = NULL
                WHERE id = \(lease.jobID) AND lease_token = \(lease.token) AND state = 'running' RETURNING sequence
                """, logger: self.logger)
            return !rows.isEmpty
        }
    }

    // MARK: - Reading and managing

    public func jobs(in states: Set<JobState>, limit: Int) async throws -> [QueuedJob] {
        guard !states.isEmpty else { return [] }
        let rows = try await database {
            try await self.client.all("""
                SELECT \(unescaped: PostgresSchema.columns) FROM courier_jobs WHERE state = ANY(\(states.map(\.rawValue)))
                ORDER BY sequence LIMIT \(Int64(max(0, limit)))
                """, logger: self.logger)
        }
        // A row that cannot be read is left out here; the next claim's sweep dead-letters it, naming it.
        return rows.compactMap { try? PostgresJobRow.read($0).job }
    }

    public func job(_ id: UUID) async throws -> QueuedJob? {
        let rows = try await database {
            try await self.client.all(
                "SELECT \(unescaped: PostgresSchema.columns) FROM courier_jobs WHERE id = \(id)", logger: self.logger)
        }
        guard let row = rows.first else { return nil }
        return try PostgresJobRow.read(row).job
    }

    public func schedule(now: Date) async throws -> QueueSchedule {
        let counts = try await database {
            var counts: [(String, Int64, Double?, Double?)] = []
            let rows = try await self.client.all("""
                SELECT state, count(*), min(CASE WHEN not_before > \(now.timeIntervalSince1970) THEN not_before END), min(enqueued_at)
                FROM courier_jobs WHERE state IN ('pending', 'running') GROUP BY state
                """, logger: self.logger)
            for row in rows { counts.append(try row.decode((String, Int64, Double?, Double?).self)) }
            return counts
        }
        var schedule = QueueSchedule(pending: 0, running: 0, nextDue: nil, oldestEnqueuedAt: nil)
        for (state, count, due, oldest) in counts {
            if let oldest = Self.date(oldest), schedule.oldestEnqueuedAt.map({ oldest < $0 }) ?? true {
                schedule.oldestEnqueuedAt = oldest
            }
            if state == "pending" {
                schedule.pending = Int(clamping: count)
                schedule.nextDue = Self.date(due)
            } else {
                schedule.running = Int(clamping: count)
            }
        }
        return schedule
    }

    public func requeueDeadLettered(_ ids: [UUID]?) async throws -> [UUID] {
        let now = Date().timeIntervalSince1970
        let query: PostgresQuery = if let ids {
            "UPDATE courier_jobs SET state = 'pending', attempts = 0, not_before = \(now), outcome = NULL WHERE state = 'dead' AND id = ANY(\(ids)) RETURNING id"
        } else {
            "UPDATE courier_jobs SET state = 'pending', attempts = 0, not_before = \(now), outcome = NULL WHERE state = 'dead' RETURNING id"
        }
        return try await database {
            var moved: [UUID] = []
            for row in try await self.client.all(query, logger: self.logger) { moved.append(try row.decode(UUID.self)) }
            return moved
        }
    }

    public func purge(_ states: Set<JobState>) async throws -> Int {
        let removable = states.subtracting([.running])
        guard !removable.isEmpty else { return 0 }
        return try await database {
            try await self.client.all(
                "DELETE FROM courier_jobs WHERE state = ANY(\(removable.map(\.rawValue))) RETURNING sequence", logger: self.logger).count
        }
    }

    public func close() async throws {
        guard closing.isFirst() else { return }
        // The client's run ends (closing its connections) when its task is cancelled.
        runner.cancel()
        await runner.value
    }

    // MARK: - Support

    /// Runs `body` in a transaction on one of the client's connections, as ``database(_:)`` runs its work.
    private func transaction<Result: Sendable>(_ body: (PostgresConnection) async throws -> Result) async throws -> Result {
        try await database {
            try await self.client.withConnection { connection in
                try await connection.all("BEGIN", logger: self.logger)
                do {
                    let result = try await body(connection)
                    try await connection.all("COMMIT", logger: self.logger)
                    return result
                } catch {
                    _ = try? await connection.all("ROLLBACK", logger: self.logger)
                    throw error
                }
            }
        }
    }

    /// Runs `body`, again (up to three times) when the server ends it for a deadlock or a serialization failure (two
    /// workers' statements can lock the same rows in different orders, a lease running out while its worker renews
    /// it, and PostgreSQL then cancels one). Any other failure of the database is thrown as
    /// `QueueStoreError.unreadableStore(path:reason:)` in the server's words (postgres-nio's own description hides
    /// them, to keep queries out of logs).
    private func database<Result: Sendable>(_ body: () async throws -> Result) async throws -> Result {
        var tries = 0
        while true {
            do {
                return try await body()
            } catch let error as PSQLError {
                if tries < 2, ["40001", "40P01"].contains(error.serverInfo?[.sqlState] ?? "") {
                    tries += 1
                    continue
                }
                throw QueueStoreError.unreadableStore(path: location, reason: Self.reason(error))
            }
        }
    }

    private static func withTimeout<Result: Sendable>(
        _ timeout: Duration, location: String, _ body: @escaping @Sendable () async throws -> Result
    ) async throws -> Result {
        try await withThrowingTaskGroup(of: Result?.self) { group in
            group.addTask { try await body() }
            group.addTask {
                try await Task.sleep(for: timeout)
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let result = first else {
                throw QueueStoreError.unreadableStore(path: location, reason: "the server did not answer within \(timeout)")
            }
            return result
        }
    }

    private static func date(_ seconds: Double?) -> Date? {
        guard let seconds, seconds.isFinite else { return nil }
        return Date(timeIntervalSince1970: seconds)
    }

    /// The server's words for `error` (postgres-nio's own description hides them, to keep queries out of logs).
    static func reason(_ error: any Error) -> String {
        guard let error = error as? PSQLError else { return String(describing: error) }
        if let message = error.serverInfo?[.message] { return message }
        if let underlying = error.underlying { return "\(error.code): \(underlying)" }
        return "\(error.code)"
    }
}
