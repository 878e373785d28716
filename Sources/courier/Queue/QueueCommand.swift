import ArgumentParser
import Courier
import CourierQueue
import CourierQueuePostgres
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `courier queue add|drain|list|retry|purge STORE …`: a durable request queue in an SQLite file or a PostgreSQL database.
struct QueueCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "queue",
        abstract: "Requests kept in a file until a server has answered them (at least once, across crashes).",
        discussion: """
        STORE is an SQLite file (created when missing; bodies over 64 KiB go to STORE.bodies/), or a PostgreSQL \
        database, postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE[?sslmode=disable|prefer|require] (its table made \
        when missing), which `drain` processes on many machines share: each job goes to one of them at a time. `add` stores a \
        request and prints its job id once it is on the disk; `drain` sends every job, retrying failures with \
        backoff and Retry-After, until none is pending or running; kill it at any point and run it again: \
        finished jobs are not sent again, and jobs that were in flight are sent again once their lease (--lease) \
        runs out, with the same Idempotency-Key (POST and PATCH get one at `add`). `list` shows the jobs, `retry` \
        puts dead-lettered jobs back, `purge` removes finished ones. \
        Exit codes: 0 done, 2 usage error or an unusable STORE, 6 `drain` dead-lettered at least one job.
        """,
        subcommands: [QueueAddCommand.self, QueueDrainCommand.self, QueueListCommand.self, QueueRetryCommand.self, QueuePurgeCommand.self]
    )

    /// Opens the store at `path` (a file, or a `postgres://` URL), or fails with a usage error naming it.
    static func openStore(_ path: String) async throws -> any QueueStore {
        do {
            if PostgresQueueStore.isDatabaseURL(path) { return try await PostgresQueueStore.open(url: path) }
            return try await SQLiteQueueStore.open(path: path)
        } catch let error as QueueStoreError {
            throw CLIFailure.usage(error.description)
        }
    }
}

/// `courier queue add STORE URL`.
struct QueueAddCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "add", abstract: "Store a request; print its job id.")

    @Argument(help: "The queue's SQLite file or postgres:// URL.")
    var store: String

    @Argument(help: "The URL.")
    var url: String

    @Option(name: [.customShort("X"), .customLong("method")], help: "The method (default GET, or POST with a body).")
    var method: String?

    @Option(name: [.customShort("H"), .customLong("header")], help: ArgumentHelp("A header field, \"Name: value\" (repeatable).", valueName: "field"))
    var headers: [String] = []

    @Option(name: [.customShort("d"), .customLong("data")], help: "The body; @FILE reads it from FILE (copied into the store).")
    var data: String?

    @Option(name: .customLong("ordering-key"), help: "Jobs with the same key run one at a time, in the order added.")
    var orderingKey: String?

    @Option(name: .customLong("delay"), parsing: .unconditional, help: ArgumentHelp("Seconds before the job may start.", valueName: "seconds"))
    var delay: OptionNumber?

    @Option(name: .customLong("deadline"), parsing: .unconditional, help: ArgumentHelp("Seconds after which it is dead-lettered instead of sent.", valueName: "seconds"))
    var deadline: OptionNumber?

    func run() async throws {
        guard let target = URL(string: url), target.host != nil else { throw CLIFailure.usage("\(url.debugDescription) is not a URL with a host") }
        var request = URLRequest(url: target)
        request.httpMethod = method ?? (data == nil ? "GET" : "POST")
        for field in headers {
            guard let colon = field.firstIndex(of: ":") else { throw CLIFailure.usage("-H \(field.debugDescription) is not \"Name: value\"") }
            request.addValue(field[field.index(after: colon)...].trimmingCharacters(in: .whitespaces), forHTTPHeaderField: String(field[..<colon]))
        }
        var options = JobOptions(orderingKey: orderingKey)
        let now = Date()
        if let delay { options.notBefore = now.addingTimeInterval(try NumericOption.delay.seconds(delay)) }
        if let deadline { options.deadline = now.addingTimeInterval(try NumericOption.deadline.seconds(deadline)) }
        let queue = RequestQueue(store: try await QueueCommand.openStore(store))
        let id: UUID
        do {
            if let data, data.hasPrefix("@") {
                id = try await queue.enqueue(request, bodyFile: URL(fileURLWithPath: String(data.dropFirst())), options: options)
            } else {
                request.httpBody = data.map { Data($0.utf8) }
                id = try await queue.enqueue(request, options: options)
            }
        } catch let error as QueueStoreError {
            try? await queue.close()
            throw CLIFailure.usage(error.description)
        }
        try await queue.close()
        try StandardStreams.write(id.uuidString.lowercased() + "\n")
    }
}

/// `courier queue drain STORE`.
struct QueueDrainCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "drain",
        abstract: "Send every job until none is pending or running.",
        discussion: "One line per job as it ends (job id, state, outcome) goes to standard output, and a summary to standard error."
    )

    @Argument(help: "The queue's SQLite file or postgres:// URL.")
    var store: String

    @Option(name: .customLong("concurrency"), parsing: .unconditional, help: ArgumentHelp("Jobs at once (1 to 1000).", valueName: "n"))
    var concurrency: OptionNumber = 8

    @Option(name: .customLong("per-host"), parsing: .unconditional, help: ArgumentHelp("Jobs at once for one host, across workers (1 to 1000).", valueName: "n"))
    var perHost: OptionNumber = 4

    @Option(name: .customLong("lease"), parsing: .unconditional, help: ArgumentHelp("Seconds a claimed job stays with this worker unless renewed (default 60).", valueName: "seconds"))
    var lease: OptionNumber = 60

    @Option(name: .customLong("attempts"), parsing: .unconditional, help: ArgumentHelp("Attempts of one job before it is dead-lettered (1 to 1000, default 10).", valueName: "n"))
    var attempts: OptionNumber = 10

    @Option(name: .customLong("backoff"), parsing: .unconditional, help: ArgumentHelp("The first retry's backoff ceiling in seconds, doubled each retry, with full jitter (default 30).", valueName: "seconds"))
    var backoff: OptionNumber = 30

    @Option(name: .customLong("poll"), parsing: .unconditional, help: ArgumentHelp("Seconds between looks for jobs added by other processes (default 1).", valueName: "seconds"))
    var poll: OptionNumber = 1

    func run() async throws {
        let defaults = RequestQueue.defaultRetryPolicy
        let policy = RetryPolicy(
            retryLimit: try NumericOption.attempts.count(attempts) - 1, exponentialBackoffBase: 2,
            exponentialBackoffScale: try NumericOption.backoff.seconds(backoff), jitter: true,
            retryableHTTPMethods: defaults.retryableHTTPMethods, retryableHTTPStatusCodes: defaults.retryableHTTPStatusCodes,
            maximumRetryAfter: defaults.maximumRetryAfter, budget: nil)
        let configuration = QueueConfiguration(
            maximumConcurrentJobs: try NumericOption.concurrency.count(concurrency),
            maximumConcurrentJobsPerHost: try NumericOption.perHost.count(perHost),
            leaseDuration: try NumericOption.lease.seconds(lease), pollInterval: try NumericOption.poll.seconds(poll),
            retryPolicy: policy)
        let queue = RequestQueue(store: try await QueueCommand.openStore(store), configuration: configuration)
        let events = queue.events()
        let printer = Task {
            var succeeded = 0
            var dead = 0
            for await event in events {
                switch event {
                case .succeeded(let id, let status, let attempts):
                    succeeded += 1
                    StandardStreams.writeOutputOrExit("\(id.uuidString.lowercased()) succeeded \(status) after \(attempts)\n")
                case .deadLettered(let id, let reason):
                    dead += 1
                    StandardStreams.writeOutputOrExit("\(id?.uuidString.lowercased() ?? "-") dead-lettered: \(reason)\n")
                default:
                    break
                }
            }
            return (succeeded, dead)
        }
        do {
            try await queue.drain()
        } catch let error as QueueStoreError {
            throw CLIFailure.usage(error.description)
        }
        try await queue.close()
        let (succeeded, dead) = await printer.value
        StandardStreams.writeError("courier: queue drained: \(succeeded) succeeded, \(dead) dead-lettered\n")
        if dead > 0 {
            let jobs = dead == 1 ? "1 job was" : "\(dead) jobs were"
            throw CLIFailure(status: .batchFailed, message: "\(jobs) dead-lettered (courier queue list \(store) --state dead)")
        }
    }
}

/// `courier queue list STORE`.
struct QueueListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "Show the jobs, in queue order.")

    @Argument(help: "The queue's SQLite file or postgres:// URL.")
    var store: String

    @Option(name: .customLong("state"), help: "Only jobs in this state: pending, running, succeeded or dead (repeatable).")
    var states: [String] = []

    func run() async throws {
        var chosen = Set<JobState>()
        for name in states {
            guard let state = JobState(rawValue: name) else { throw CLIFailure.usage("--state \(name.debugDescription) is not pending, running, succeeded or dead") }
            chosen.insert(state)
        }
        let store = try await QueueCommand.openStore(store)
        let jobs = try await store.jobs(in: chosen.isEmpty ? Set(JobState.allCases) : chosen, limit: .max)
        try await store.close()
        var text = ""
        for job in jobs {
            let target = "\(job.request.method ?? "GET") \(job.request.url?.absoluteString ?? "-")"
            let outcome = job.outcome.map { " — \($0.summary)" } ?? ""
            text += "\(job.id.uuidString.lowercased())  \(job.state)  attempts \(job.attempts)  \(target)\(outcome)\n"
        }
        try StandardStreams.write(text)
    }
}

/// `courier queue retry STORE [ID…]`.
struct QueueRetryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "retry", abstract: "Put dead-lettered jobs (all, or those named) back in the queue.")

    @Argument(help: "The queue's SQLite file or postgres:// URL.")
    var store: String

    @Argument(help: "Job ids (default: every dead-lettered job).")
    var ids: [String] = []

    func run() async throws {
        var chosen: [UUID] = []
        for text in ids {
            guard let id = UUID(uuidString: text) else { throw CLIFailure.usage("\(text.debugDescription) is not a job id") }
            chosen.append(id)
        }
        let store = try await QueueCommand.openStore(store)
        let moved = try await store.requeueDeadLettered(chosen.isEmpty ? nil : chosen)
        try await store.close()
        try StandardStreams.write("\(moved.count) jobs back in the queue\n")
    }
}

/// `courier queue purge STORE`.
struct QueuePurgeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "purge", abstract: "Remove finished jobs (succeeded and dead-lettered, or the --state given).")

    @Argument(help: "The queue's SQLite file or postgres:// URL.")
    var store: String

    @Option(name: .customLong("state"), help: "Remove jobs in this state: pending, succeeded or dead (repeatable; running jobs are never removed).")
    var states: [String] = []

    func run() async throws {
        var chosen = Set<JobState>()
        for name in states {
            guard let state = JobState(rawValue: name), state != .running else {
                throw CLIFailure.usage("--state \(name.debugDescription) is not pending, succeeded or dead")
            }
            chosen.insert(state)
        }
        let store = try await QueueCommand.openStore(store)
        let removed = try await store.purge(chosen.isEmpty ? [.succeeded, .deadLettered] : chosen)
        try await store.close()
        try StandardStreams.write("\(removed) jobs removed\n")
    }
}
