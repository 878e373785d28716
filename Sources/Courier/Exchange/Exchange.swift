import Foundation
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One request's whole life, shared by Courier's operations and session tasks: each of their attempts is one
/// exchange, started, paused and cancelled by the façade's driver (the first run, and each resume of a paused
/// operation).
///
/// It runs the request through its ``ExchangePipeline`` (the caller's stages, redirects, authentication
/// challenges, cookies, the transport), streams the final body into its sink with progress, pauses (stops reading,
/// keeps the connection), and can be cancelled at any moment. Its phases live in an `ExchangeStateMachine`; this
/// class performs the actions the machine returns.
///
/// ``result()`` runs the exchange in the calling task: cancelling that task cancels the exchange, and its
/// task-local values are visible to every stage. ``start()`` runs it on a task of its own, for callers that do not
/// wait (AFNetworking's `start()` and `resume()`).
///
/// ```swift
/// let exchange = Exchange(request: URLRequest(url: url), configuration: .init(transport: transport))
/// let result = try await exchange.result()
/// ```
public final class Exchange: Sendable {
    /// The request as given.
    public let originalRequest: URLRequest
    /// The transport, sink, stages and hooks.
    public let configuration: ExchangeConfiguration

    let state: Mutex<State>
    /// Reaches the transport's request in flight from ``cancel()``, whichever task awaits it.
    private let cancellation = TransportCancellation()

    /// Everything that changes, behind the exchange's one lock.
    struct State {
        var machine = ExchangeStateMachine()
        var currentRequest: URLRequest
        var response: HTTPURLResponse?
        var sent = TransferProgress(bytesThisTime: 0, totalBytes: 0, totalBytesExpected: -1)
        var received = TransferProgress(bytesThisTime: 0, totalBytes: 0, totalBytesExpected: -1)
        /// The exchange's own task, when ``start()`` made one.
        var task: Task<Void, Never>?
        /// The outcome once the exchange has ended. A `.stream` result's body refers back to this exchange, so
        /// the stored copy drops the body once a caller has it: keeping it would be a reference cycle, one leaked
        /// exchange per request.
        var finished: Result<ExchangeResult, any Error>?
        /// Callers of ``result()`` waiting for a run they did not start.
        var outcomeWaiters: [CheckedContinuation<Result<ExchangeResult, any Error>, Never>] = []
        /// Body readers waiting for ``resume()``.
        var pausedReaders: [CheckedContinuation<Void, any Error>] = []
        var body: ResponseBodyStream?
        /// A memory sink's bytes so far.
        var memoryBody: Data?
        /// Whether this run posts the request notifications (decided at its start, so it posts both or neither).
        var postsNotifications = false
        var metrics = ExchangeMetrics(fetchStart: Date())
    }

    /// Creates an exchange; nothing is sent until ``start()`` or ``result()``.
    public init(request: URLRequest, configuration: ExchangeConfiguration) {
        self.originalRequest = request
        self.configuration = configuration
        self.state = Mutex(State(currentRequest: request))
    }

    // MARK: Observing

    /// The current phase.
    public var phase: ExchangePhase { state.withLock { $0.machine.phase } }
    /// Whether reading is paused.
    public var isPaused: Bool { state.withLock { $0.machine.isPaused } }
    /// The request on the wire now (after redirects, with the headers the stages added).
    public var currentRequest: URLRequest { state.withLock { $0.currentRequest } }
    /// The latest response head, once one has arrived: each hop's as it arrives, then the final one as the stages
    /// above the transport made it (a decoded body's head, which resume data must see: a `Range` cannot continue
    /// decoded bytes).
    public var response: HTTPURLResponse? { state.withLock { $0.response } }
    /// Request body bytes sent so far, and expected.
    public var sendProgress: TransferProgress { state.withLock { $0.sent } }
    /// Response body bytes delivered so far, and expected (for a resumed download: including the
    /// kept bytes).
    public var receiveProgress: TransferProgress { state.withLock { $0.received } }
    /// Timings so far.
    public var metrics: ExchangeMetrics { state.withLock { $0.metrics } }
    /// The body a memory sink holds so far (with the kept bytes it continues), also after a failure or
    /// cancellation; `nil` before the body or for the other sinks.
    public var receivedData: Data? { state.withLock { $0.memoryBody } }

    // MARK: Controlling

    /// Starts the exchange on a task of its own and returns at once. Calling it again, or after ``result()``, does
    /// nothing.
    public func start() {
        guard state.withLock({ $0.machine.start() }) == .sendRequest else { return }
        let task = Task { [self] in
            conclude(await execute(), callerHasIt: false)
        }
        state.withLock { state in
            // A task that already finished has concluded; keeping it would only keep it alive.
            if state.finished == nil { state.task = task }
        }
    }

    /// Runs the exchange in the calling task and returns its result; when it is already running (after
    /// ``start()``, or for another caller), waits for that run. Cancelling the calling task cancels the exchange.
    public func result() async throws -> ExchangeResult {
        if state.withLock({ $0.machine.start() }) == .sendRequest {
            let outcome = await withTaskCancellationHandler {
                await execute()
            } onCancel: {
                self.cancel()
            }
            conclude(outcome, callerHasIt: true)
            return try outcome.get()
        }
        let outcome = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let finished = state.withLock { state -> Result<ExchangeResult, any Error>? in
                    guard let finished = state.finished else {
                        state.outcomeWaiters.append(continuation)
                        return nil
                    }
                    state.finished = finished.withoutBody
                    return finished
                }
                if let finished { continuation.resume(returning: finished) }
            }
        } onCancel: {
            self.cancel()
        }
        return try outcome.get()
    }

    /// Stops reading the response (the connection stays open) until ``resume()``.
    public func pause() {
        // `.suspendReading` needs no I/O here: the body reader checks the flag before each chunk.
        _ = state.withLock { $0.machine.pause() }
    }

    /// Whether a paused exchange's body reader has stopped: from here nothing more is delivered until ``resume()``.
    var isHoldingBody: Bool { state.withLock { !$0.pausedReaders.isEmpty } }

    /// Reads again after ``pause()``.
    public func resume() {
        let readers = state.withLock { state -> [CheckedContinuation<Void, any Error>] in
            guard state.machine.resume() == .resumeReading else { return [] }
            defer { state.pausedReaders = [] }
            return state.pausedReaders
        }
        for reader in readers { reader.resume() }
    }

    /// Cancels the exchange in whatever phase it is; it fails with `URLError(.cancelled)`, also for a caller of
    /// ``result()`` in another task.
    public func cancel() {
        let error = cancelledError()
        let (action, body, task, readers) = state.withLock { state in
            let action = state.machine.cancel()
            if action == .refuseStart { state.finished = .failure(error) }
            defer { state.pausedReaders = [] }
            return (action, state.body, state.task, state.pausedReaders)
        }
        for reader in readers { reader.resume(throwing: error) }
        switch action {
        case .cancelTransport:
            cancellation.cancel()
            body?.cancel()
            task?.cancel()
        default:
            // `.refuseStart` stored the outcome above; nothing was in flight.
            return
        }
    }

    // MARK: The lifecycle

    /// One run (see ``runWithNotifications()``), logged, traced and measured when the configuration's logger and
    /// telemetry have somewhere to send it.
    private func execute() async -> Result<ExchangeResult, any Error> {
        guard let observation = ExchangeObservation(configuration: configuration, request: originalRequest) else {
            // An exchange made inside another's run (an interceptor's token refresh) must not record into that one's.
            guard ExchangeObservation.current == nil else {
                return await ExchangeObservation.$current.withValue(nil) { await runWithNotifications() }
            }
            return await runWithNotifications()
        }
        let outcome = await observation.observing { await runWithNotifications() }
        observation.finished(outcome, bytesSent: sendProgress.totalBytes)
        return outcome
    }

    /// One run from the first request to the end of the body (for `.stream`: to the head), with the
    /// notifications and the completion hook.
    private func runWithNotifications() async -> Result<ExchangeResult, any Error> {
        let posts = NotificationDemand.request.isPosted
        state.withLock { state in
            state.metrics.fetchStart = Date()
            state.postsNotifications = posts
        }
        if posts { postRequestNotification(.courierRequestDidStart, error: nil) }
        let outcome: Result<ExchangeResult, any Error>
        do {
            outcome = .success(try await run())
        } catch {
            outcome = .failure(failed(with: error))
        }
        switch outcome {
        case .failure(let error) where posts:
            postRequestNotification(.courierRequestDidFinish, error: error)
        case .success(let result) where posts && result.body == nil:
            postRequestNotification(.courierRequestDidFinish, error: nil)
        default:
            // Not posting, or a streamed body that posts it when it ends.
            break
        }
        configuration.hooks.didComplete(outcome)
        return outcome
    }

    /// Stores the outcome for later callers of ``result()`` and hands it to those waiting.
    private func conclude(_ outcome: Result<ExchangeResult, any Error>, callerHasIt: Bool) {
        let waiters = state.withLock { state in
            state.task = nil
            state.finished = callerHasIt || !state.outcomeWaiters.isEmpty ? outcome.withoutBody : outcome
            defer { state.outcomeWaiters = [] }
            return state.outcomeWaiters
        }
        for waiter in waiters { waiter.resume(returning: outcome) }
    }

    private func run() async throws -> ExchangeResult {
        let wire = TransportStage(
            transport: configuration.transport, challenges: configuration.hooks.answersChallenges ? configuration.hooks : nil,
            cancellation: cancellation, recorder: self
        )
        let stages = ExchangePipeline.standardStages(for: configuration, observation: ExchangeObservation.current)
        let pipeline = ExchangePipeline(stages: stages, transport: wire.send)
        let body = configuration.body ?? HTTPRequestBody(request: originalRequest)
        let final = try await pipeline.send(StageRequest(
            urlRequest: originalRequest, body: body, deadline: configuration.deadline, cancellation: cancellation
        ))
        if final.source != .network { recordCacheAnswer(final) }
        switch state.withLock({ $0.machine.receivedHead() }) {
        case .deliverBody:
            try refuseUnaskedPartialContent(final)
            return try await deliver(final)
        default:
            final.body.cancel()
            throw cancelledError()
        }
    }

    /// Returns at once unless paused; then waits for ``resume()`` (or throws `URLError(.cancelled)` on ``cancel()``).
    /// Not reading is what stops the socket reads (backpressure), so the connection stays open while paused.
    func waitWhilePaused() async throws {
        // Fast path without a continuation: an exchange is almost never paused.
        let mustWait = try state.withLock { state -> Bool in
            if state.machine.phase == .cancelled { throw URLError(.cancelled) }
            return state.machine.isPaused
        }
        guard mustWait else { return }
        try await withCheckedThrowingContinuation { (reader: CheckedContinuation<Void, any Error>) in
            let immediate = state.withLock { state -> Result<Void, any Error>? in
                if state.machine.phase == .cancelled { return .failure(URLError(.cancelled)) }
                guard state.machine.isPaused else { return .success(()) }
                state.pausedReaders.append(reader)
                return nil
            }
            if let immediate { reader.resume(with: immediate) }
        }
    }

    // MARK: Errors

    /// The error a run ends with: a cancellation (of the exchange, its task, or by a stage) is `URLError(.cancelled)`
    /// and leaves the exchange `.cancelled`; anything else leaves it `.failed`.
    private func failed(with error: any Error) -> any Error {
        if let refusal = error as? BodyRefusal {
            // The body decision's own error, with its own message; the exchange ends cancelled.
            _ = state.withLock { $0.machine.cancel() }
            return refusal.error
        }
        let isCancellation = error is CancellationError || (error as? URLError)?.code == .cancelled
        let phase = state.withLock { state in
            if !isCancellation { _ = state.machine.fail() }
            return state.machine.phase
        }
        guard isCancellation || phase == .cancelled else { return error }
        cancel()
        return cancelledError()
    }

    func cancelledError() -> URLError {
        URLError(.cancelled, userInfo: [
            NSURLErrorFailingURLErrorKey: currentRequest.url as Any,
            NSLocalizedDescriptionKey: "The request was cancelled.",
        ])
    }
}
