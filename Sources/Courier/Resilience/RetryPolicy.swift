import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Retries requests that failed in a way a second attempt may fix, with backoff, within a budget
/// (Alamofire's `RetryPolicy`, with what it lacks: `Retry-After`, jitter, a budget, and care for bodies).
///
/// Defaults, as Alamofire's: at most 2 retries; exponential backoff `base^retry × scale` (2 × 0.5 s: 0.5 s, 1 s,
/// 2 s …) with full jitter (a random delay between 0 and that); idempotent methods only (GET, HEAD, PUT, DELETE,
/// OPTIONS, TRACE); statuses 408, 429, 500, 502, 503, 504; the transient `URLError` codes. Beyond Alamofire:
/// - a `Retry-After` on 429 and 503 (seconds or an HTTP date) sets the delay instead, up to
///   ``maximumRetryAfter``; a server asking for longer is not waited for: the request fails at once with
///   ``RetryAfterTooLongError`` carrying the status and the delay asked for;
/// - a ``RetryBudget`` shared by every request this policy serves (one per session when set on its
///   configuration) keeps retries to a share of the requests;
/// - a request of another method is retried only after an error that proves the server never received it
///   (connection refused, name lookup failed, TLS handshake failed);
/// - a body that cannot be sent again is never retried (see ``RequestAttempt/canResendBody``).
public final class RetryPolicy: RequestInterceptor {
    /// The most retries of one request. Default 2.
    public let retryLimit: Int
    /// The backoff's base. Default 2.
    public let exponentialBackoffBase: Double
    /// The backoff's scale in seconds. Default 0.5.
    public let exponentialBackoffScale: TimeInterval
    /// Whether a backoff delay is drawn at random between 0 and its value (full jitter). Default true.
    public let jitter: Bool
    /// The methods retried after any retryable failure (upper-case). Default: GET, HEAD, PUT, DELETE, OPTIONS, TRACE.
    public let retryableHTTPMethods: Set<String>
    /// The statuses retried. Default: 408, 429, 500, 502, 503, 504.
    public let retryableHTTPStatusCodes: Set<Int>
    /// The errors retried. Default: ``defaultRetryableURLErrorCodes``.
    public let retryableURLErrorCodes: Set<URLError.Code>
    /// The longest `Retry-After` waited for, in seconds. Default 30.
    public let maximumRetryAfter: TimeInterval
    /// Limits retries to a share of requests. Default: a ``RetryBudget`` of this policy's own (20 %).
    public let budget: RetryBudget?

    /// The default methods.
    public static let defaultRetryableHTTPMethods: Set<String> = ["GET", "HEAD", "PUT", "DELETE", "OPTIONS", "TRACE"]
    /// The default statuses.
    public static let defaultRetryableHTTPStatusCodes: Set<Int> = [408, 429, 500, 502, 503, 504]
    /// The transient `URLError` codes Alamofire retries.
    public static let defaultRetryableURLErrorCodes: Set<URLError.Code> = [
        .backgroundSessionInUseByAnotherProcess, .backgroundSessionWasDisconnected, .badServerResponse, .callIsActive,
        .cannotConnectToHost, .cannotFindHost, .cannotLoadFromNetwork, .dataNotAllowed, .dnsLookupFailed,
        .downloadDecodingFailedMidStream, .downloadDecodingFailedToComplete, .internationalRoamingOff,
        .networkConnectionLost, .notConnectedToInternet, .secureConnectionFailed, .serverCertificateHasBadDate,
        .serverCertificateNotYetValid, .timedOut,
    ]
    /// The errors that prove the server never received the request, so that any method may be sent again.
    public static let neverReceivedURLErrorCodes: Set<URLError.Code> = [
        .cannotConnectToHost, .cannotFindHost, .dnsLookupFailed, .secureConnectionFailed,
    ]

    /// A policy; every parameter defaults to the value listed on its property.
    public init(
        retryLimit: Int = 2,
        exponentialBackoffBase: Double = 2,
        exponentialBackoffScale: TimeInterval = 0.5,
        jitter: Bool = true,
        retryableHTTPMethods: Set<String> = RetryPolicy.defaultRetryableHTTPMethods,
        retryableHTTPStatusCodes: Set<Int> = RetryPolicy.defaultRetryableHTTPStatusCodes,
        retryableURLErrorCodes: Set<URLError.Code> = RetryPolicy.defaultRetryableURLErrorCodes,
        maximumRetryAfter: TimeInterval = 30,
        budget: RetryBudget? = RetryBudget()
    ) {
        self.retryLimit = max(0, retryLimit)
        self.exponentialBackoffBase = exponentialBackoffBase
        self.exponentialBackoffScale = exponentialBackoffScale
        self.jitter = jitter
        self.retryableHTTPMethods = Set(retryableHTTPMethods.map { $0.uppercased() })
        self.retryableHTTPStatusCodes = retryableHTTPStatusCodes
        self.retryableURLErrorCodes = retryableURLErrorCodes
        self.maximumRetryAfter = maximumRetryAfter
        self.budget = budget
    }

    /// Counts the request's first attempt in the budget; the request is unchanged.
    public func adapt(_ request: URLRequest, for attempt: RequestAttempt) async throws -> URLRequest {
        if attempt.number == 0 { budget?.recordRequest() }
        return request
    }

    /// Retries by the rules above.
    public func retry(_ request: URLRequest, response: HTTPURLResponse?, error: any Error, attempt: RequestAttempt) async -> RetryDecision {
        guard attempt.number < retryLimit, attempt.canResendBody, isRetryable(request, response: response, error: error) else {
            return .doNotRetry
        }
        var delay = backoff(afterAttempt: attempt.number)
        if let response, response.statusCode == 429 || response.statusCode == 503,
            let asked = Self.retryAfter(response.value(forHTTPHeaderField: "Retry-After"))
        {
            guard asked <= maximumRetryAfter else {
                return .doNotRetry(with: RetryAfterTooLongError(statusCode: response.statusCode, retryAfter: asked, maximum: maximumRetryAfter))
            }
            delay = asked
        }
        guard budget?.withdrawForRetry() ?? true else { return .doNotRetry }
        return .retry(after: delay)
    }

    /// Whether the method, status or error calls for another attempt.
    func isRetryable(_ request: URLRequest, response: HTTPURLResponse?, error: any Error) -> Bool {
        let method = (request.httpMethod ?? "GET").uppercased()
        let code = (error as? URLError)?.code
        guard retryableHTTPMethods.contains(method) else {
            // The server may have acted on it: only a request that never reached it goes again.
            return response == nil && code.map(Self.neverReceivedURLErrorCodes.contains) == true
        }
        if let response { return retryableHTTPStatusCodes.contains(response.statusCode) }
        return code.map(retryableURLErrorCodes.contains) ?? false
    }

    /// The backoff before the retry after attempt `number` (0-based): a random delay up to
    /// ``backoffCeiling(afterAttempt:)`` with ``jitter``, else that ceiling.
    public func backoff(afterAttempt number: Int) -> TimeInterval {
        let ceiling = backoffCeiling(afterAttempt: number)
        return jitter && ceiling > 0 ? Double.random(in: 0...ceiling) : ceiling
    }

    /// `base^number × scale` seconds (0 when that is not a finite positive number).
    public func backoffCeiling(afterAttempt number: Int) -> TimeInterval {
        let ceiling = pow(exponentialBackoffBase, Double(number)) * exponentialBackoffScale
        return ceiling.isFinite && ceiling > 0 ? ceiling : 0
    }

    /// The most seconds a `Retry-After` value is read as (about 31 years): a server's longer number (even one
    /// with hundreds of digits) means the same "too long", and stays a finite number any caller can convert.
    public static let longestRetryAfter: TimeInterval = 1e9

    /// The seconds a `Retry-After` value asks for: delta-seconds, or an HTTP date (a past date is 0), at most
    /// ``longestRetryAfter``; nil when absent or malformed.
    public static func retryAfter(_ value: String?, now: Date = Date()) -> TimeInterval? {
        guard let value = value?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
        if value.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) {
            return min(Double(value) ?? longestRetryAfter, longestRetryAfter)
        }
        guard let date = HTTPDate.parse(value) else { return nil }
        let delay = date.timeIntervalSince(now)
        return delay.isFinite ? min(max(0, delay), longestRetryAfter) : nil
    }
}

/// A server asked, with `Retry-After`, for a longer wait than the retry policy allows: the request fails with the
/// server's status and the delay it asked for instead of blocking its caller.
public struct RetryAfterTooLongError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The status that came with `Retry-After` (429 or 503).
    public let statusCode: Int
    /// The seconds the server asked for.
    public let retryAfter: TimeInterval
    /// The policy's ``RetryPolicy/maximumRetryAfter``.
    public let maximum: TimeInterval

    /// Whole seconds as text, for any value (no conversion to `Int` that could trap).
    private static func seconds(_ value: TimeInterval) -> String {
        value.isFinite ? String(format: "%.0f", value.rounded(.up)) : "\(value)"
    }

    /// "The server answered 503 and asked to retry after 3600 s, more than the 30 s the retry policy waits."
    public var description: String {
        "The server answered \(statusCode) and asked to retry after \(Self.seconds(retryAfter)) s, more than the \(Self.seconds(maximum)) s the retry policy waits."
    }
}

/// A retry was decided, but its delay would end after the exchange's deadline (``ExchangeConfiguration/deadline``: a
/// resource timeout, `--max-time`): the request fails at once, with why the last attempt failed, instead of waiting
/// for a retry that could not finish in time.
public struct RetryDeadlineError: Error, Sendable, CustomStringConvertible {
    /// The seconds the retry would have waited.
    public let delay: TimeInterval
    /// The seconds left before the deadline when the retry was decided.
    public let remaining: TimeInterval
    /// The last attempt's status, when it got a response.
    public let statusCode: Int?
    /// Why the last attempt failed: its error, or ``HTTPStatusError`` for a status of 400 or more.
    public let underlyingError: any Error

    /// Creates the error.
    public init(delay: TimeInterval, remaining: TimeInterval, statusCode: Int?, underlyingError: any Error) {
        self.delay = delay
        self.remaining = remaining
        self.statusCode = statusCode
        self.underlyingError = underlyingError
    }

    /// "The server answered 503; the retry after 20 s would end past the request's deadline (2.9 s left)."
    public var description: String {
        let cause = statusCode.map { "The server answered \($0)" } ?? "The request failed (\(underlyingError))"
        return "\(cause); the retry after \(String(format: "%.1f", delay)) s would end past the request's deadline (\(String(format: "%.1f", max(0, remaining))) s left)."
    }
}
