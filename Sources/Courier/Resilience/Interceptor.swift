import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An adapter from a closure.
public struct Adapter: RequestInterceptor {
    private let adapt: @Sendable (URLRequest, RequestAttempt) async throws -> URLRequest

    /// An adapter running `adapt` for every attempt.
    public init(_ adapt: @escaping @Sendable (URLRequest, RequestAttempt) async throws -> URLRequest) {
        self.adapt = adapt
    }

    /// Runs the closure.
    public func adapt(_ request: URLRequest, for attempt: RequestAttempt) async throws -> URLRequest {
        try await adapt(request, attempt)
    }
}

/// A retrier from a closure.
public struct Retrier: RequestInterceptor {
    private let decide: @Sendable (URLRequest, HTTPURLResponse?, any Error, RequestAttempt) async -> RetryDecision

    /// A retrier asking `decide` about every failed attempt.
    public init(_ decide: @escaping @Sendable (URLRequest, HTTPURLResponse?, any Error, RequestAttempt) async -> RetryDecision) {
        self.decide = decide
    }

    /// Runs the closure.
    public func retry(_ request: URLRequest, response: HTTPURLResponse?, error: any Error, attempt: RequestAttempt) async -> RetryDecision {
        await decide(request, response, error, attempt)
    }
}

/// Several interceptors as one: every adapter in order, each given the previous one's request; the retriers in
/// order until one decides something other than `.doNotRetry` (Alamofire's `Interceptor`).
public struct Interceptor: RequestInterceptor {
    /// The adapters, in the order they run.
    public let adapters: [any RequestAdapter]
    /// The retriers, in the order they are asked.
    public let retriers: [any RequestRetrier]

    /// A composite of `adapters` and `retriers` (default: none of either).
    public init(adapters: [any RequestAdapter] = [], retriers: [any RequestRetrier] = []) {
        self.adapters = adapters
        self.retriers = retriers
    }

    /// A composite whose interceptors both adapt and retry, in the order given.
    public init(interceptors: [any RequestInterceptor]) {
        self.adapters = interceptors
        self.retriers = interceptors
    }

    /// Runs every adapter in order.
    public func adapt(_ request: URLRequest, for attempt: RequestAttempt) async throws -> URLRequest {
        var adapted = request
        for adapter in adapters {
            adapted = try await adapter.adapt(adapted, for: attempt)
        }
        return adapted
    }

    /// The first decision other than `.doNotRetry`, or `.doNotRetry`.
    public func retry(_ request: URLRequest, response: HTTPURLResponse?, error: any Error, attempt: RequestAttempt) async -> RetryDecision {
        for retrier in retriers {
            let decision = await retrier.retry(request, response: response, error: error, attempt: attempt)
            if decision.deliversFailureAsItIs { continue }
            return decision
        }
        return .doNotRetry
    }
}
