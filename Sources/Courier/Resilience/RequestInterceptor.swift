import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Where a request is in its attempts, as adapters and retriers see it.
public struct RequestAttempt: Sendable {
    /// The attempt about to be sent (adapters) or just failed (retriers): 0 for the first, 1 for the first retry…
    public let number: Int
    /// Whether the request's body can be sent again: none, bytes, a file, or a stream the exchange can ask afresh
    /// (the new-body-stream block, a multipart form). A body that cannot is never retried, whatever a retrier says.
    public let canResendBody: Bool

    /// An attempt `number` whose body can (or cannot) be sent again.
    public init(number: Int, canResendBody: Bool) {
        self.number = number
        self.canResendBody = canResendBody
    }
}

/// What a retrier decides about a failed attempt: `.retry`, `.retry(after: seconds)`, `.doNotRetry`, or
/// `.doNotRetry(with: error)`.
public enum RetryDecision: Sendable {
    /// Send the request again after `seconds` (0: at once).
    case retry(after: TimeInterval)
    /// Fail with `error` instead, or, when it is nil, deliver the failure (the error, or the response) as it is.
    case doNotRetry(with: (any Error)?)

    /// Send the request again at once.
    public static var retry: RetryDecision { .retry(after: 0) }
    /// Deliver the failure as it is.
    public static var doNotRetry: RetryDecision { .doNotRetry(with: nil) }

    /// Whether this is `.doNotRetry` without an error of its own.
    var deliversFailureAsItIs: Bool {
        if case .doNotRetry(with: nil) = self { return true }
        return false
    }
}

/// Changes each attempt of a request before it is sent (Alamofire's `RequestAdapter`): a header, a signature, a
/// token that may have been refreshed since the last attempt.
public protocol RequestAdapter: Sendable {
    /// The request to send for `attempt`. Throwing fails the exchange with the error.
    func adapt(_ request: URLRequest, for attempt: RequestAttempt) async throws -> URLRequest
}

/// Decides whether a failed attempt is sent again (Alamofire's `RequestRetrier`).
public protocol RequestRetrier: Sendable {
    /// Whether to send `request` again after `error`. For an attempt that got a response with a status of 400 or
    /// more, `response` is it and `error` is ``HTTPStatusError``; for one that failed, `response` is nil.
    func retry(_ request: URLRequest, response: HTTPURLResponse?, error: any Error, attempt: RequestAttempt) async -> RetryDecision
}

/// Both: adapts every attempt and decides on retries (Alamofire's `RequestInterceptor`). Set interceptors on
/// ``SessionConfiguration/interceptors``, ``HTTPRequestOperationManager/interceptors``, a task or an operation, or
/// ``ExchangeConfiguration/interceptors``; the session's (or manager's) run before the request's own.
public protocol RequestInterceptor: RequestAdapter, RequestRetrier {}

extension RequestInterceptor {
    /// Leaves the request as it is.
    public func adapt(_ request: URLRequest, for attempt: RequestAttempt) async throws -> URLRequest { request }

    /// Never retries.
    public func retry(_ request: URLRequest, response: HTTPURLResponse?, error: any Error, attempt: RequestAttempt) async -> RetryDecision {
        .doNotRetry
    }
}

/// An attempt answered with a status of 400 or more, as retriers see it.
public struct HTTPStatusError: Error, Sendable, CustomStringConvertible {
    /// The response.
    public let response: HTTPURLResponse

    /// The response's status code.
    public var statusCode: Int { response.statusCode }

    /// The error for an attempt answered with `response`.
    public init(response: HTTPURLResponse) {
        self.response = response
    }

    /// "The server answered 503."
    public var description: String { "The server answered \(response.statusCode)." }
}
