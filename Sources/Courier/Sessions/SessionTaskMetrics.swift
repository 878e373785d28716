import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What a task's metrics block receives, shaped like `URLSessionTaskMetrics`, measured at the
/// exchange.
///
/// What is measured: when the task was resumed, when its first request was handed to the engine
/// (so queueing before it), when each request started, when each response head arrived and when
/// each body ended, and, for a request that waited for a new connection, when that connection was
/// ready. AsyncHTTPClient reports only that last moment, not when the name lookup, the TCP connect
/// or the TLS handshake started or ended, so a new connection is reported as one interval: from the
/// request's hand-off (``Transaction/connectStartDate``) to the connection being ready
/// (``Transaction/connectEndDate``, and for HTTPS also ``Transaction/secureConnectionEndDate``),
/// with the name lookup inside it. The lookup dates and ``Transaction/secureConnectionStartDate``
/// are always `nil` rather than guessed.
public struct SessionTaskMetrics: Sendable {
    /// One request and its response, like `URLSessionTaskTransactionMetrics`.
    public struct Transaction: Sendable {
        /// The request as sent.
        public let request: URLRequest
        /// Its response, when the head arrived.
        public let response: HTTPURLResponse?
        /// `"http/1.1"` or `"h2"`, as `networkProtocolName`; `nil` when no response arrived.
        public let networkProtocolName: String?
        /// When the exchange began working on the task (before the first request only; later
        /// transactions give their request start).
        public let fetchStartDate: Date
        /// Not exposed by the engine: always `nil` (the lookup is inside the connect interval).
        public let domainLookupStartDate: Date?
        /// Not exposed by the engine: always `nil` (the lookup is inside the connect interval).
        public let domainLookupEndDate: Date?
        /// When the request was handed to the engine with no idle connection, which then looked the host up and
        /// connected; `nil` on a reused connection, or when several requests of the pool waited for connections at
        /// once and this one's could not be told apart.
        public let connectStartDate: Date?
        /// When the new connection was ready (TLS handshake and certificate check included); `nil` as for
        /// ``connectStartDate``.
        public let connectEndDate: Date?
        /// Not exposed by the engine: always `nil`.
        public let secureConnectionStartDate: Date?
        /// For HTTPS, when the TLS handshake was done and the certificate accepted (equal to ``connectEndDate``);
        /// `nil` for plain HTTP and as for ``connectStartDate``.
        public let secureConnectionEndDate: Date?
        /// Whether the request went out on a connection made for it (``connectStartDate`` is set).
        public var madeNewConnection: Bool { connectStartDate != nil }
        /// When the request was handed to the engine.
        public let requestStartDate: Date
        /// When the response head arrived (the first byte of the response).
        public let responseStartDate: Date?
        /// When the response body ended.
        public let responseEndDate: Date?
        /// How many times this request was sent again on a new connection because the reused connection it first
        /// went out on was closed before answering (0 to 3). Not in `URLSessionTaskTransactionMetrics`.
        public let staleConnectionRetries: Int
    }

    /// From `resume()` to the end of the task.
    public let taskInterval: DateInterval
    /// Time between `resume()` and the first request handed to the engine.
    public let queueingDuration: TimeInterval
    /// The redirects followed.
    public let redirectCount: Int
    /// Request body bytes sent.
    public let countOfBytesSent: Int64
    /// Response body bytes received.
    public let countOfBytesReceived: Int64
    /// Every request sent, in order (redirects and authentication retries included).
    public let transactionMetrics: [Transaction]
    /// The exchange's own record these metrics were made from (``Exchange/metrics``): each request as it went on the
    /// wire, its head, the protocol version and whether the cache answered. Courier's addition.
    public let exchangeMetrics: ExchangeMetrics

    init(exchange: ExchangeMetrics, resumedAt: Date, bytesSent: Int64, bytesReceived: Int64) {
        exchangeMetrics = exchange
        let end = exchange.end ?? Date()
        taskInterval = DateInterval(start: resumedAt, end: max(end, resumedAt))
        queueingDuration = max(0, (exchange.transactions.first?.requestStart ?? exchange.fetchStart).timeIntervalSince(resumedAt))
        redirectCount = exchange.transactions.dropLast().filter { $0.response.map { (300..<400).contains($0.statusCode) } ?? false }.count
        countOfBytesSent = bytesSent
        countOfBytesReceived = bytesReceived
        transactionMetrics = exchange.transactions.enumerated().map { index, transaction in
            Transaction(
                request: transaction.request,
                response: transaction.response,
                networkProtocolName: transaction.httpVersion.map(Self.protocolName(_:)),
                fetchStartDate: index == 0 ? exchange.fetchStart : transaction.requestStart,
                domainLookupStartDate: nil, domainLookupEndDate: nil,
                connectStartDate: transaction.connection?.start, connectEndDate: transaction.connection?.end,
                secureConnectionStartDate: nil,
                secureConnectionEndDate: transaction.connection.flatMap { $0.isSecure ? $0.end : nil },
                requestStartDate: transaction.requestStart,
                responseStartDate: transaction.responseStart,
                responseEndDate: transaction.responseEnd,
                staleConnectionRetries: transaction.staleConnectionRetries
            )
        }
    }

    /// ALPN-style names, as URLSession reports them.
    private static func protocolName(_ version: String) -> String {
        switch version.uppercased() {
        case "HTTP/2.0", "HTTP/2": return "h2"
        case "HTTP/1.0": return "http/1.0"
        default: return "http/1.1"
        }
    }
}
