import Courier
import CourierQueue
import CourierTestServer
import Foundation
import Synchronization
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A queue on a new SQLite file in a temporary folder, sending to a test server of its own (whose request log is
/// then this queue's alone), with a retry policy whose backoff is short enough for tests.
struct QueueFixture {
    let folder: URL
    let path: String
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
        _ configuration: QueueConfiguration = QueueConfiguration(retryPolicy: policy()), name: String = "default"
    ) async throws -> QueueFixture {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("courier-queue-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let path = folder.appendingPathComponent("queue.sqlite").path
        let server = try await TestServer.start()
        let store = try await SQLiteQueueStore.open(path: path)
        return QueueFixture(
            folder: folder, path: path, server: server, queue: RequestQueue(store: store, configuration: configuration, name: name))
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
