import Courier
import CourierQueue
import CourierQueuePostgres
import CourierTestServer
import Foundation
import Synchronization
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The stores a queue's behaviour is checked on: each test of the queue's semantics runs on both.
enum QueueStoreKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite
    case postgres

    var testDescription: String { rawValue == "sqlite" ? "SQLite" : "PostgreSQL" }
}

/// A new, empty PostgreSQL database on the test cluster (scripts/postgres-test-server) for each test.
enum PostgresDatabases {
    /// The URL of a new database, or the test is cancelled (skipped) naming what to install when PostgreSQL does not
    /// run here (`.ci/run` installs it and fails when such tests were skipped).
    static func make() async throws -> String {
        guard await ExternalServers.postgres.isRunning(), let server = ExternalServers.postgres.variables["COURIER_POSTGRES_URL"] else {
            // Swift Testing prints the cancellation of a parameterized test's case nowhere: said here, so that a run
            // without PostgreSQL shows which cases did not run (and `.ci/run`, which greps for it, fails).
            print("Skipped on PostgreSQL: \(ExternalServers.postgres.skipMessage)")
            try Test.cancel(ExternalServers.postgres.skipMessage)
        }
        let name = "queue_\(UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased())"
        let created = try await ShellCommand.run("psql -X -q -v ON_ERROR_STOP=1 '\(server)' -c 'CREATE DATABASE \(name)'")
        try #require(created.status == 0, "CREATE DATABASE failed: \(created.standardError)")
        return server.replacingOccurrences(of: "/courier?", with: "/\(name)?")
    }

    /// Runs `sql` in the database at `url` with psql; what it printed (unaligned, tuples only).
    @discardableResult
    static func run(_ sql: String, in url: String) async throws -> String {
        let outcome = try await ShellCommand.run("psql -X -q -A -t -v ON_ERROR_STOP=1 '\(url)' -c \"\(sql.replacingOccurrences(of: "\"", with: "\\\""))\"")
        try #require(outcome.status == 0, "psql failed: \(outcome.standardError)")
        return String(decoding: outcome.standardOutput, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

/// A queue on a new store (an SQLite file in a temporary folder, or a new PostgreSQL database), sending to a test
/// server of its own (whose request log is then this queue's alone), with a retry policy whose backoff is short enough
/// for tests.
struct QueueFixture {
    let folder: URL
    /// The SQLite file, or the PostgreSQL database's URL.
    let path: String
    let kind: QueueStoreKind
    let server: TestServer
    let queue: RequestQueue

    /// A retry policy as the queue's default, with backoffs of `scale` seconds.
    static func policy(attempts: Int = 10, scale: TimeInterval = 0.01) -> RetryPolicy {
        let defaults = RequestQueue.defaultRetryPolicy
        return RetryPolicy(
            retryLimit: attempts - 1, exponentialBackoffBase: 2, exponentialBackoffScale: scale, jitter: true,
            retryableHTTPMethods: defaults.retryableHTTPMethods, retryableHTTPStatusCodes: defaults.retryableHTTPStatusCodes,
            maximumRetryAfter: defaults.maximumRetryAfter, budget: nil)
    }

    static func start(
        _ configuration: QueueConfiguration = QueueConfiguration(retryPolicy: policy()), name: String = "default",
        store kind: QueueStoreKind = .sqlite
    ) async throws -> QueueFixture {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("courier-queue-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let path = kind == .sqlite ? folder.appendingPathComponent("queue.sqlite").path : try await PostgresDatabases.make()
        let server = try await TestServer.start()
        let store = try await openStore(kind, path)
        return QueueFixture(
            folder: folder, path: path, kind: kind, server: server, queue: RequestQueue(store: store, configuration: configuration, name: name))
    }

    /// Opens the store of kind `kind` at `path` (again, or beside the fixture's own: another worker's).
    static func openStore(_ kind: QueueStoreKind, _ path: String) async throws -> any QueueStore {
        switch kind {
        case .sqlite: try await SQLiteQueueStore.open(path: path)
        case .postgres: try await PostgresQueueStore.open(url: path)
        }
    }

    /// Another connection to this fixture's store.
    func openStore() async throws -> any QueueStore {
        try await Self.openStore(kind, path)
    }

    func url(_ path: String) throws -> URL {
        try #require(URL(string: path, relativeTo: server.baseURL)?.absoluteURL)
    }

    func request(_ path: String, method: String = "GET", body: Data? = nil) throws -> URLRequest {
        var request = URLRequest(url: try url(path))
        request.httpMethod = method
        request.httpBody = body
        return request
    }

    func stop() async {
        try? await queue.close()
        try? await server.shutdown()
        try? FileManager.default.removeItem(at: folder)
    }
}

/// Collects a queue's events, with when each arrived, while a test runs.
final class QueueEventLog: Sendable {
    private final class Entries: Sendable {
        let items = Mutex<[(Date, QueueEvent)]>([])
    }

    private let entries = Entries()
    private let reader: Task<Void, Never>

    init(_ queue: RequestQueue) {
        let events = queue.events()
        let entries = entries
        reader = Task {
            for await event in events { entries.items.withLock { $0.append((Date(), event)) } }
        }
    }

    /// The events so far, oldest first.
    var events: [(at: Date, event: QueueEvent)] { entries.items.withLock { $0.map { (at: $0.0, event: $0.1) } } }

    /// Waits (polling, up to 10 s) until `count` events match `matches`: events emitted before a drain returned may
    /// still be on their way through the stream.
    func waitFor(_ count: Int, _ matches: @escaping @Sendable (QueueEvent) -> Bool) async {
        _ = await eventually { self.events.filter { matches($0.event) }.count >= count }
    }

    func stop() { reader.cancel() }
}
