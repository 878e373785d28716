import Foundation
import NIOConcurrencyHelpers

/// One request as the server received it, recorded before routing.
public struct RecordedRequest: Sendable, Hashable {
    /// One header field as received.
    public struct Header: Sendable, Hashable {
        /// The field name, lower-cased.
        public let name: String
        /// The field value.
        public let value: String
    }

    /// The request method, e.g. `GET`.
    public let method: String
    /// The request target: path plus query, e.g. `/get?a=1`.
    public let target: String
    /// The header fields in the order received.
    public let headers: [Header]

    /// The request path without its query.
    public var path: String {
        String(target.prefix { $0 != "?" })
    }

    /// The first value of the header `name` (case-insensitive), if present.
    public func header(_ name: String) -> String? {
        let lowered = name.lowercased()
        return headers.first { $0.name == lowered }?.value
    }
}

/// A thread-safe record of the requests a ``TestServer`` has received: how many, and the most recent
/// ``capacity`` of them, so that a server answering for hours (`courier serve`, the soak) keeps a bounded log.
///
/// Security tests use it to prove that a request never reached the server (for instance after a
/// failed TLS handshake): `server.requestLog.count == 0`.
public final class RequestLog: Sendable {
    /// How many requests ``requests`` keeps (the oldest go first).
    public static let capacity = 10_000

    private struct Storage {
        var recent: [RecordedRequest] = []
        var total = 0
    }

    private let storage = NIOLockedValueBox(Storage())

    init() {}

    /// The number of requests received so far.
    public var count: Int {
        storage.withLockedValue { $0.total }
    }

    /// The requests received so far, oldest first: the last ``capacity`` of them.
    public var requests: [RecordedRequest] {
        storage.withLockedValue { Array($0.recent.suffix(Self.capacity)) }
    }

    /// Forgets all recorded requests.
    public func reset() {
        storage.withLockedValue { $0 = Storage() }
    }

    func append(_ request: RecordedRequest) {
        storage.withLockedValue { storage in
            storage.total += 1
            storage.recent.append(request)
            // Trimmed in halves, so that an append costs O(1) on average.
            if storage.recent.count >= 2 * Self.capacity { storage.recent.removeFirst(Self.capacity) }
        }
    }
}
