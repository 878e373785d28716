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

    /// When one request was with the server: from its arrival until its handler returned the response (`nil` while
    /// it is still being answered).
    private struct Visit {
        let number: Int
        let request: RecordedRequest
        let received: ContinuousClock.Instant
        var answered: ContinuousClock.Instant?
    }

    private struct Storage {
        var recent: [Visit] = []
        var total = 0
        /// Numbers the visits; never reset, so that a request answered after ``reset()`` finds no other's visit.
        var sequence = 0
    }

    private let storage = NIOLockedValueBox(Storage())

    init() {}

    /// The number of requests received so far.
    public var count: Int {
        storage.withLockedValue { $0.total }
    }

    /// The requests received so far, oldest first: the last ``capacity`` of them.
    public var requests: [RecordedRequest] {
        storage.withLockedValue { $0.recent.suffix(Self.capacity).map(\.request) }
    }

    /// The most requests matching `isIncluded` that the server was answering at one time, among the last
    /// ``capacity``: how many clients' requests really overlapped, measured where they arrive (a client's own record
    /// of when its requests started and ended can be ordered differently from what the server saw). A request counts
    /// from its arrival until its handler returned the response.
    public func mostAtOnce(where isIncluded: (RecordedRequest) -> Bool = { _ in true }) -> Int {
        let visits = storage.withLockedValue { Array($0.recent.suffix(Self.capacity)) }.filter { isIncluded($0.request) }
        // An end sorts before a start at the same instant: a request answered as another arrived did not overlap it.
        var changes: [(at: ContinuousClock.Instant, delta: Int)] = []
        for visit in visits {
            changes.append((visit.received, 1))
            if let answered = visit.answered { changes.append((answered, -1)) }
        }
        changes.sort { $0.at < $1.at || ($0.at == $1.at && $0.delta < $1.delta) }
        var current = 0
        var most = 0
        for change in changes {
            current += change.delta
            most = max(most, current)
        }
        return most
    }

    /// Forgets all recorded requests.
    public func reset() {
        storage.withLockedValue { storage in
            storage.recent = []
            storage.total = 0
        }
    }

    /// Records `request` as it arrives; returns its number for ``answered(_:)``.
    func append(_ request: RecordedRequest) -> Int {
        let now = ContinuousClock.now
        return storage.withLockedValue { storage in
            storage.total += 1
            storage.sequence += 1
            storage.recent.append(Visit(number: storage.sequence, request: request, received: now))
            // Trimmed in halves, so that an append costs O(1) on average.
            if storage.recent.count >= 2 * Self.capacity { storage.recent.removeFirst(Self.capacity) }
            return storage.sequence
        }
    }

    /// Records that the handler of request number `number` (from ``append(_:)``) returned its response.
    func answered(_ number: Int) {
        let now = ContinuousClock.now
        storage.withLockedValue { storage in
            // Numbers are consecutive in `recent`; a visit trimmed or reset since is not there.
            guard let first = storage.recent.first?.number, number >= first, number - first < storage.recent.count,
                  storage.recent[number - first].number == number
            else { return }
            storage.recent[number - first].answered = now
        }
    }
}
