import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What an exchange produced.
public struct ExchangeResult: Sendable {
    /// The last request sent (after redirects and authentication retries).
    public let request: URLRequest
    /// The final response.
    public let response: HTTPURLResponse
    /// The body, for the `.memory` sink (and for an unrelated status of a resumed download).
    public let data: Data?
    /// The body stream, for the `.stream` sink.
    public let body: ResponseBodyStream?
    /// Body bytes delivered by this exchange (for `.stream`: 0 when the result is returned).
    public let bytesReceived: Int64
    /// How many redirects were followed.
    public let redirectCount: Int
    /// How a resumed download went, or `nil` when ``ExchangeConfiguration/resumption`` was not set.
    public let resumption: ResumptionOutcome?
    /// When each phase happened.
    public let metrics: ExchangeMetrics
}

/// Timings of an exchange, one transaction per request sent (redirects and authentication
/// retries included), measured at the exchange.
public struct ExchangeMetrics: Sendable {
    /// One request/response on the wire.
    public struct Transaction: Sendable {
        /// The request as sent.
        public var request: URLRequest
        /// Its response, once the head arrived.
        public var response: HTTPURLResponse?
        /// The protocol version of the response (`"HTTP/1.1"`, `"HTTP/2.0"`).
        public var httpVersion: String?
        /// When the request was handed to the transport.
        public var requestStart: Date
        /// The new connection the request waited for (name lookup, connect and TLS together), or `nil` when it went
        /// out on a pooled connection or the transport could not attribute one to it.
        public var connection: ConnectionEstablishment?
        /// When the response head arrived.
        public var responseStart: Date?
        /// How many times the transport sent this request again on a new connection because a reused one was
        /// closed before answering (0 to 3; see ``TransportResponse/staleConnectionRetries``).
        public var staleConnectionRetries = 0
        /// When the response body ended (or was abandoned for a follow-up).
        public var responseEnd: Date?
        /// Whether the response came from the cache, without a request on the wire (`URLSessionTaskMetrics`'
        /// `.localCache` fetch type). Default `false`.
        public var isFromCache = false
    }

    /// When the exchange started.
    public var fetchStart: Date
    /// The transactions in order.
    public var transactions: [Transaction] = []
    /// Where the final response came from: the network, the cache, or the cache after a `304`. Default `.network`.
    public var responseSource: ResponseSource = .network
    /// When the exchange ended.
    public var end: Date?
    /// The total duration, once ended.
    public var duration: TimeInterval? { end.map { $0.timeIntervalSince(fetchStart) } }
}

extension Result where Success == ExchangeResult {
    /// The outcome without its streamed body, for callers after the first.
    var withoutBody: Self {
        guard case .success(let result) = self, result.body != nil else { return self }
        return .success(ExchangeResult(
            request: result.request, response: result.response, data: result.data, body: nil,
            bytesReceived: result.bytesReceived, redirectCount: result.redirectCount,
            resumption: result.resumption, metrics: result.metrics
        ))
    }
}

extension Result {
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
