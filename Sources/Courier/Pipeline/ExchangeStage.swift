import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One step of an exchange's request pipeline, with one concern (redirects, authentication, cookies…).
///
/// A stage receives the request and ``ExchangeStage/Next``, the rest of the pipeline: it may change the request,
/// call `next` (once, several times for a follow-up, or not at all to answer by itself), and look at or replace
/// the response on its way back. Every stage runs in the task that awaits the exchange, so task-local values and
/// cancellation reach it.
///
/// The order is fixed (see ``ExchangePipeline``): the caller's stages (``ExchangeConfiguration/stages``), then the
/// default header fields, the interceptors, the follow-ups (restarting a resumed download that does not fit,
/// redirects, authentication challenges), cookies and content decoding, the cache, observability, then the transport.
///
/// ```swift
/// struct RequestID: ExchangeStage {
///     func respond(to request: StageRequest, next: Next) async throws -> StageResponse {
///         var request = request
///         request.urlRequest.setValue(UUID().uuidString, forHTTPHeaderField: "X-Request-ID")
///         return try await next(request)
///     }
/// }
/// ```
public protocol ExchangeStage: Sendable {
    /// The rest of the pipeline after this stage.
    typealias Next = ExchangePipeline.Next

    /// Answers `request`, usually by passing it (changed or not) to `next`.
    /// - Throws: Any error ends the exchange with it; `URLError(.cancelled)` marks it cancelled.
    func respond(to request: StageRequest, next: Next) async throws -> StageResponse
}

/// A request as it travels down the pipeline.
public struct StageRequest: Sendable {
    /// The request: URL, method, header fields, timeout and cookie policy. Its `httpBody` and `httpBodyStream` are
    /// not read; ``body`` is what is sent.
    public var urlRequest: URLRequest
    /// The body sent with it, or `nil` for none.
    public var body: HTTPRequestBody?
    /// The exchange's request as given, before any stage changed it (its origin decides where the exchange's own
    /// credential may be sent).
    public let originalRequest: URLRequest
    /// When the whole exchange must have ended (``ExchangeConfiguration/deadline``): a stage that would wait past it
    /// (a retry's delay) fails at once instead. `nil` for none.
    public var deadline: ContinuousClock.Instant?
    /// The exchange's cancellation handle: a stage that waits between hops (a retry's delay) stops waiting when the
    /// exchange is cancelled from outside its task. `nil` when the pipeline runs outside an exchange.
    public var cancellation: TransportCancellation?

    /// Creates a pipeline request.
    /// - Parameters:
    ///   - urlRequest: The request.
    ///   - body: The body. Default `nil`.
    ///   - originalRequest: The exchange's request as given. Default `urlRequest`.
    ///   - deadline: When the exchange must have ended. Default `nil`: none.
    ///   - cancellation: The exchange's cancellation handle. Default `nil`.
    public init(
        urlRequest: URLRequest, body: HTTPRequestBody? = nil, originalRequest: URLRequest? = nil,
        deadline: ContinuousClock.Instant? = nil, cancellation: TransportCancellation? = nil
    ) {
        self.urlRequest = urlRequest
        self.body = body
        self.originalRequest = originalRequest ?? urlRequest
        self.deadline = deadline
        self.cancellation = cancellation
    }

    /// The request's URL; `URLError(.badURL)` when it has none.
    func url() throws -> URL {
        guard let url = urlRequest.url else {
            throw URLError(.badURL, userInfo: [NSLocalizedDescriptionKey: "The request has no URL."])
        }
        return url
    }
}

/// A response as it travels back up the pipeline: the head and its body stream, and the request it answers.
public struct StageResponse: Sendable {
    /// The request that received this response (after the stages below the one looking at it, for example the
    /// last hop of a redirect chain).
    public var request: URLRequest
    /// The head, the header fields as received, the streaming body and the connection facts.
    public var transportResponse: TransportResponse
    /// How many redirects led to this response. Default 0.
    public var redirectCount: Int
    /// Where the response came from: the network, or a cache (see `CacheStage`). Default `.network`.
    public var source: ResponseSource

    /// Creates a pipeline response.
    /// - Parameters:
    ///   - request: The request it answers.
    ///   - transportResponse: The response.
    ///   - redirectCount: Redirects followed to reach it. Default 0.
    ///   - source: Where it came from. Default `.network`.
    public init(request: URLRequest, transportResponse: TransportResponse, redirectCount: Int = 0, source: ResponseSource = .network) {
        self.request = request
        self.transportResponse = transportResponse
        self.redirectCount = redirectCount
        self.source = source
    }

    /// The status line and header fields.
    public var head: HTTPURLResponse { transportResponse.head }
    /// The body, streamed with backpressure.
    public var body: ResponseBodyStream { transportResponse.body }
}
