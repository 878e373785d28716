import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One retry about to happen: what the session's will-retry block, its notification and the CLI see.
public struct RetryEvent: Sendable {
    /// The request as it was last sent (adapted).
    public let request: URLRequest
    /// 1 for the first retry, 2 for the second…
    public let retryNumber: Int
    /// The seconds waited before the retry is sent.
    public let delay: TimeInterval
    /// Why the last attempt failed: its error, or ``HTTPStatusError`` for a response of 400 or more.
    public let error: any Error
    /// The last attempt's response, when it got one.
    public let response: HTTPURLResponse?
}

/// Runs the request interceptors (``ExchangeConfiguration/interceptors``): every adapter before each attempt, and the
/// retriers after an attempt that failed or got a status of 400 or more, which may send the request again after a
/// delay. Left out of the pipeline when there is no interceptor.
///
/// It sits outside the follow-ups (redirects, challenges), so an attempt is a whole trip through them and a retry
/// starts from the request as given; the delay is slept in the caller's task, so cancelling it stops the wait.
struct InterceptionStage: ExchangeStage {
    /// The interceptors, in the order they run (the session's before the request's own).
    let interceptor: Interceptor
    /// Told before each retry (after its delay is decided, before it is waited); supplies a fresh body stream for a
    /// retry of a stream body (without one, such a body is not retried).
    let hooks: any ExchangeHooks

    /// A stage running `interceptors` in order.
    init(interceptors: [any RequestInterceptor], hooks: any ExchangeHooks = NoExchangeHooks()) {
        self.interceptor = Interceptor(interceptors: interceptors)
        self.hooks = hooks
    }

    /// Adapts the request before each attempt and asks the retriers after a failed one whether to send it again.
    func respond(to request: StageRequest, next: Next) async throws -> StageResponse {
        let canResendBody = Self.canResend(request.body, hooks: hooks)
        var number = 0
        while true {
            let attempt = RequestAttempt(number: number, canResendBody: canResendBody)
            var sent = request
            if number > 0 {
                sent.body = FollowUpRequest.body(request.body, resentWith: request.urlRequest, hooks: hooks)
            }
            sent.urlRequest = try await interceptor.adapt(request.urlRequest, for: attempt)

            let response: StageResponse?
            let failure: any Error
            do {
                let received = try await next(sent)
                guard received.head.statusCode >= 400 else { return received }
                response = received
                failure = HTTPStatusError(response: received.head)
            } catch {
                if Task.isCancelled || (error as? URLError)?.code == .cancelled { throw error }
                response = nil
                failure = error
            }

            let decision = await interceptor.retry(sent.urlRequest, response: response?.head, error: failure, attempt: attempt)
            let delay: TimeInterval
            switch decision {
            case .doNotRetry(with: nil):
                if let response { return response }
                throw failure
            case .doNotRetry(with: let error?):
                response?.body.cancel()
                throw error
            case .retry(after: let seconds):
                delay = seconds.isFinite ? max(0, seconds) : 0
            }
            guard canResendBody else {
                if let response { return response }
                throw failure
            }
            if let deadline = request.deadline {
                // A wait that would outlast the exchange's deadline only delays a failure that is already certain.
                let remaining = ContinuousClock.now.duration(to: deadline)
                if remaining < .seconds(delay) {
                    response?.body.cancel()
                    throw RetryDeadlineError(
                        delay: delay, remaining: Self.seconds(remaining), statusCode: response?.head.statusCode, underlyingError: failure
                    )
                }
            }
            if let response { try await FollowUpRequest.abandon(response, sentBody: sent.body) }
            number += 1
            let event = RetryEvent(request: sent.urlRequest, retryNumber: number, delay: delay, error: failure, response: response?.head)
            ExchangeObservation.current?.retrying(event)
            await hooks.willRetry(event)
            if delay > 0 {
                do {
                    try await Self.wait(delay, cancellation: request.cancellation)
                } catch {
                    throw URLError(.cancelled, userInfo: [NSURLErrorFailingURLErrorKey: request.urlRequest.url as Any])
                }
            }
        }
    }

    /// Sleeps `delay` seconds (at most a year: a retrier's delay is not checked), ended early by the cancellation of
    /// the caller's task or of the exchange (`cancellation`: `Exchange.cancel()` from another task, a resource
    /// timeout, `--max-time`), which no hop is listening to while the retry waits.
    private static func wait(_ delay: TimeInterval, cancellation: TransportCancellation?) async throws {
        let duration = Duration.seconds(min(delay, 365 * 86_400))
        guard let cancellation else { return try await Task.sleep(for: duration) }
        let sleep = Task { try await Task.sleep(for: duration) }
        cancellation.onCancel { sleep.cancel() }
        try await withTaskCancellationHandler {
            try await sleep.value
        } onCancel: {
            sleep.cancel()
        }
    }

    /// `duration` in seconds.
    private static func seconds(_ duration: Duration) -> TimeInterval {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
    /// Whether `body` can be sent again: none, bytes or a file, or a stream that the hooks can supply afresh.
    static func canResend(_ body: HTTPRequestBody?, hooks: any ExchangeHooks) -> Bool {
        switch body?.source {
        case nil, .data?, .file?: return true
        case .inputStream?: return hooks.suppliesBodyStreams
        case .producer?: return false
        }
    }
}
