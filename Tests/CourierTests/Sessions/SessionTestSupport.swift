import Dispatch
import Foundation
import Synchronization
import Testing
@testable import Courier
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Helpers for the session tests: managers on the shared test transport, an ordered event log.
enum SessionFixtures {
    /// The queue completion handlers run on in tests (the main queue is not needed).
    static let completionQueue = DispatchQueue(label: "courier-tests.session-completion")

    /// An ephemeral manager on the shared test transport.
    static func manager(_ configure: (inout SessionConfiguration) -> Void = { _ in }) -> URLSessionManager {
        var configuration = SessionConfiguration.ephemeral
        configuration.transport = Fixtures.transport
        configure(&configuration)
        let manager = URLSessionManager(configuration: configuration)
        manager.completionQueue = completionQueue
        return manager
    }

    /// A request for the plain server's `path`.
    static func request(_ path: String, method: String = "GET") async throws -> URLRequest {
        var request = URLRequest(url: try await Fixtures.url(path))
        request.httpMethod = method
        return request
    }

    /// A fresh path for a downloaded file (not created).
    static func destination() -> URL {
        Fixtures.temporaryFile("session-\(UUID().uuidString)")
    }

    /// The JSON object in `data`.
    static func json(_ data: Data) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }
}

/// Events in the order they happened, from any thread.
final class EventLog: Sendable {
    private let events = Mutex<[String]>([])

    func append(_ event: String) { events.withLock { $0.append(event) } }

    var all: [String] { events.withLock { $0 } }

    /// The events with consecutive repeats of the same name (before any `(`) collapsed into one.
    var collapsed: [String] {
        all.map { String($0.prefix { $0 != "(" }) }.reduce(into: []) { result, name in
            if result.last != name { result.append(name) }
        }
    }

    func count(_ name: String) -> Int { all.filter { $0.hasPrefix(name) }.count }
}

/// A one-shot signal awaited by a test and fired by a callback.
final class Signal<Value: Sendable>: Sendable {
    private let state = Mutex<(value: Value?, waiter: CheckedContinuation<Value, Never>?)>((nil, nil))

    func fire(_ value: Value) {
        let waiter = state.withLock { state -> CheckedContinuation<Value, Never>? in
            guard state.value == nil else { return nil }
            state.value = value
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: value)
    }

    func wait() async -> Value {
        let value = await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> Value? in
                if let value = state.value { return value }
                state.waiter = continuation
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
        return value
    }
}

/// Lets tests check that a block runs on the manager's delegate queue.
extension URLSessionManager {
    var isOnDelegateQueue: Bool {
        DispatchQueue.getSpecific(key: Self.testKey) != nil
    }

    static let testKey = DispatchSpecificKey<Bool>()

    func markDelegateQueue() {
        delegateQueue.setSpecific(key: Self.testKey, value: true)
    }
}
