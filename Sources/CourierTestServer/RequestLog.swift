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

/// A thread-safe record of every request a ``TestServer`` has received.
///
/// Security tests use it to prove that a request never reached the server (for instance after a
/// failed TLS handshake): `server.requestLog.count == 0`.
public final class RequestLog: Sendable {
    private let storage = NIOLockedValueBox<[RecordedRequest]>([])

    init() {}

    /// The number of requests received so far.
    public var count: Int {
        storage.withLockedValue { $0.count }
    }

    /// All requests received so far, oldest first.
    public var requests: [RecordedRequest] {
        storage.withLockedValue { $0 }
    }

    /// Forgets all recorded requests.
    public func reset() {
        storage.withLockedValue { $0.removeAll() }
    }

    func append(_ request: RecordedRequest) {
        storage.withLockedValue { $0.append(request) }
    }
}
