import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What a task's metrics block receives, shaped like `URLSessionTaskMetrics`, measured at the
/// exchange.
///
/// AsyncHTTPClient does not say when it resolved the name, connected or finished the TLS
/// handshake, nor whether a pooled connection was reused, so ``Transaction/domainLookupStart``,
/// ``Transaction/connectStart``, ``Transaction/secureConnectionStart`` and their ends are always
/// `nil` rather than guessed. What is measured: when the task was resumed, when its first request
/// was handed to the engine (so queueing before it), when each request started, when each
/// response head arrived and when each body ended.
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
        /// Not exposed by the engine: always `nil`.
        public let domainLookupStartDate: Date?
        /// Not exposed by the engine: always `nil`.
        public let domainLookupEndDate: Date?
        /// Not exposed by the engine: always `nil`.
        public let connectStartDate: Date?
        /// Not exposed by the engine: always `nil`.
        public let connectEndDate: Date?
        /// Not exposed by the engine: always `nil`.
        public let secureConnectionStartDate: Date?
        /// Not exposed by the engine: always `nil`.
        public let secureConnectionEndDate: Date?
        /// When the request was handed to the engine.
        public let requestStartDate: Date
        /// When the response head arrived (the first byte of the response).
        public let responseStartDate: Date?
        /// When the response body ended.
        public let responseEndDate: Date?
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

    init(exchange: ExchangeMetrics, resumedAt: Date, bytesSent: Int64, bytesReceived: Int64) {
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
                connectStartDate: nil, connectEndDate: nil,
                secureConnectionStartDate: nil, secureConnectionEndDate: nil,
                requestStartDate: transaction.requestStart,
                responseStartDate: transaction.responseStart,
                responseEndDate: transaction.responseEnd
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
