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

    private let state: Mutex<State>
    /// Reaches the transport's request in flight from ``cancel()``, whichever task awaits it.
    private let cancellation = TransportCancellation()

    /// Everything that changes, behind the exchange's one lock.
    private struct State {
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
        configuration.completion?(outcome)
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
        let pipeline = ExchangePipeline(stages: ExchangePipeline.standardStages(for: configuration)) { [self] request in
            try await transmit(request)
        }
        let body = configuration.body ?? RequestBody(request: originalRequest)
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

    /// The end of the pipeline: one request on the wire, with its progress and metrics.
    private func transmit(_ request: StageRequest) async throws -> StageResponse {
        let url = try request.url()
        let urlRequest = request.urlRequest
        let expected: Int64 = request.body.map { $0.length ?? -1 } ?? 0
        let now = Date()
        let cancelled = state.withLock { state -> Bool in
            guard state.machine.phase != .cancelled else { return true }
            state.sent = TransferProgress(bytesThisTime: 0, totalBytes: 0, totalBytesExpected: expected)
            state.currentRequest = urlRequest
            // The previous hop's body was abandoned for this follow-up.
            if let last = state.metrics.transactions.indices.last, state.metrics.transactions[last].responseEnd == nil {
                state.metrics.transactions[last].responseEnd = now
            }
            state.metrics.transactions.append(.init(request: urlRequest, requestStart: now))
            return false
        }
        if cancelled { throw cancelledError() }
        var headers: [(name: String, value: String)] = []
        if let fields = urlRequest.allHTTPHeaderFields {
            headers.reserveCapacity(fields.count)
            for (name, value) in fields { headers.append((name: name, value: value)) }
        }
        let observation = ExchangeObservation.current
        if let observation {
            observation.trace?.attemptStarting(urlRequest, url: url, headers: &headers)
            if let log = observation.log, log.tracesDecisions { log.sending(urlRequest, headers: headers) }
        }
        var transportRequest = TransportRequest(
            url: url,
            method: urlRequest.httpMethod ?? "GET",
            headers: headers,
            body: request.body,
            timeoutInterval: urlRequest.timeoutInterval,
            cancellation: cancellation
        )
        if request.body != nil {
            transportRequest.didSendBodyBytes = { [weak self] count in self?.didSend(count) }
        }
        if let challengeHandler = configuration.challengeHandler, url.scheme?.lowercased() == "https" {
            transportRequest.serverTrustHandler = { trust in
                AuthenticationChallenge.serverTrustDecision(
                    for: await challengeHandler(AuthenticationChallenge(serverTrust: trust, request: urlRequest))
                )
            }
        }
        let response: TransportResponse
        do {
            response = try await configuration.transport.send(transportRequest)
        } catch {
            observation?.trace?.attemptFailed(error)
            throw error
        }
        observation?.trace?.attemptAnswered(statusCode: response.head.statusCode, httpVersion: response.httpVersion)
        let arrived = Date()
        state.withLock { state in
            state.response = response.head
            state.body = response.body
            let last = state.metrics.transactions.count - 1
            state.metrics.transactions[last].response = response.head
            state.metrics.transactions[last].httpVersion = response.httpVersion
            state.metrics.transactions[last].connection = response.connection
            state.metrics.transactions[last].staleConnectionRetries = response.staleConnectionRetries
            state.metrics.transactions[last].responseStart = arrived
        }
        return StageResponse(request: urlRequest, transportResponse: response)
    }

    /// A final response from the cache: a transaction without the wire for a stored answer (after a `304`, the
    /// conditional request's transaction stays the last), and the response as the exchange's.
    private func recordCacheAnswer(_ response: StageResponse) {
        let now = Date()
        state.withLock { state in
            state.response = response.head
            state.metrics.responseSource = response.source
            guard response.source == .cache else { return }
            var transaction = ExchangeMetrics.Transaction(request: response.request, requestStart: now)
            transaction.response = response.head
            transaction.httpVersion = response.transportResponse.httpVersion
            transaction.responseStart = now
            transaction.isFromCache = true
            state.metrics.transactions.append(transaction)
        }
    }

    /// The user-info key of the 3xx response in the error of a redirect that could not be followed.
    public static let redirectResponseKey = "CourierRedirectResponse"

    /// A `206` is a part of something only a range request can ask for; to a request without `Range`
    /// it would be taken for the whole body.
    /// - Throws: `URLError(.badServerResponse)`.
    private func refuseUnaskedPartialContent(_ response: StageResponse) throws {
        guard response.head.statusCode == 206, response.request.value(forHTTPHeaderField: "Range") == nil else { return }
        response.body.cancel()
        throw URLError(.badServerResponse, userInfo: [
            NSURLErrorFailingURLErrorKey: response.request.url as Any,
            NSLocalizedDescriptionKey: "The server answered 206 Partial Content to a request that asked for no range.",
        ])
    }

    private func didSend(_ count: Int64) {
        let progress = state.withLock { state in
            state.sent.bytesThisTime = count
            state.sent.totalBytes += count
            return state.sent
        }
        configuration.uploadProgress?(progress)
    }

    // MARK: Delivering the body

    private func deliver(_ response: StageResponse) async throws -> ExchangeResult {
        // The range request stood when the final request still carries `Range` (the restart stage drops it).
        let resumption = configuration.resumption.flatMap {
            $0.canResume && response.request.value(forHTTPHeaderField: "Range") != nil ? $0 : nil
        }
        let head = response.head
        let outcome = resumptionOutcome(of: head, activeResumption: resumption)
        let continuation: ContentRange? = if case .continued = outcome { resumption?.continuation(in: head) } else { nil }
        let kept = continuation?.start ?? 0
        let length = continuation?.length ?? head.expectedContentLength
        let (total, overflow) = kept.addingReportingOverflow(length)
        let received = TransferProgress(bytesThisTime: 0, totalBytes: kept, totalBytesExpected: length < 0 || overflow ? -1 : total)
        state.withLock { state in
            state.response = head
            state.received = received
        }
        var allowance = BodyAllowance(exactLength: continuation?.length, maximum: configuration.maximumBodySize, kept: kept, url: response.request.url)
        do {
            try allowance.checkAnnounced(head.expectedContentLength)
        } catch {
            response.body.cancel()
            throw error
        }
        configuration.didReceiveResponse?(head)
        if let outcome { configuration.didDecideResumption?(outcome, received) }
        let decision = await configuration.bodyDecision?(head, outcome) ?? .receive
        func result(data: Data?, body: ResponseBodyStream?) -> ExchangeResult {
            ExchangeResult(
                request: response.request, response: head, data: data, body: body,
                bytesReceived: receiveProgress.totalBytes - kept, redirectCount: response.redirectCount,
                resumption: outcome, metrics: metrics
            )
        }

        let target = sink(for: outcome, kept: kept)
        let initialMemory: Data? = switch target {
        case .memory: Data()
        case .memoryContinuing(let keptBytes): keptBytes
        default: nil
        }
        switch decision {
        case .refuse(let error):
            response.body.cancel()
            throw BodyRefusal(error: error)
        case .handOver:
            return result(data: nil, body: ResponseBodyStream(ObservedBody(base: response.body, exchange: self, allowance: allowance), cancel: response.body.cancel))
        case .receive:
            if target.isStream {
                return result(data: nil, body: ResponseBodyStream(ObservedBody(base: response.body, exchange: self, allowance: allowance), cancel: response.body.cancel))
            }
        }
        if outcome == .alreadyComplete {
            response.body.cancel()
            state.withLock { $0.memoryBody = initialMemory }
            bodyDidEnd(error: nil)
            return result(data: initialMemory ?? Data(), body: nil)
        }
        var writer: (any BodyWriter)?
        do {
            writer = try target.makeWriter()
        } catch {
            response.body.cancel()
            throw error
        }
        let keepsInMemory = writer == nil
        if keepsInMemory { state.withLock { $0.memoryBody = initialMemory } }
        do {
            for try await chunk in response.body {
                if !allowance.isUnlimited { try allowance.admit(chunk.count) }
                try await writer?.write(chunk)
                try didReceive(chunk.count, keeping: keepsInMemory ? chunk : nil)
                configuration.didReceiveData?(chunk)
                try await waitWhilePaused()
            }
            try allowance.finish()
            try await writer?.finish()
            bodyDidEnd(error: nil)
            return result(data: keepsInMemory ? receivedData ?? Data() : nil, body: nil)
        } catch {
            await writer?.abandon()
            response.body.cancel()
            throw error
        }
    }

    /// How the final response treats the bytes a resumed download kept: judged by the range request
    /// when one went out, else (the resumption could not be used, or was dropped after a mismatch) as
    /// the answer to a request for the whole resource. `nil` when nothing was kept.
    private func resumptionOutcome(of response: HTTPURLResponse, activeResumption: DownloadResumption?) -> ResumptionOutcome? {
        if let activeResumption { return activeResumption.outcome(of: response) }
        return configuration.resumption.map { _ in DownloadResumption.outcome(ofFullRequest: response) }
    }

    /// The sink for the final body: a resumed file continues after its kept bytes, or starts over
    /// (truncated before the first byte) whenever the body does not continue them; an unrelated
    /// answer (an error status) goes to memory so the kept bytes stay untouched.
    private func sink(for outcome: ResumptionOutcome?, kept: Int64) -> ResponseSink {
        switch (configuration.sink, outcome) {
        case (.file(let url, _), .continued?):
            return .file(url, offset: kept)
        case (_, .unrelated?):
            return .memory
        case (.file(let url, _), _?):
            return .file(url, offset: 0)
        case (.memoryContinuing, .continued?), (.memoryContinuing, .alreadyComplete?):
            return configuration.sink
        case (.memoryContinuing, _):
            return .memory
        default:
            return configuration.sink
        }
    }

    /// Counts a chunk of the final body; with `keeping`, the memory sink's chunk, appends it (refused once the
    /// exchange is cancelled, so what ``receivedData`` held at ``cancel()`` is what it keeps).
    fileprivate func didReceive(_ count: Int, keeping chunk: Data? = nil) throws {
        let progress = try state.withLock { state in
            if let chunk {
                if state.machine.phase == .cancelled { throw URLError(.cancelled) }
                if state.memoryBody?.isEmpty ?? true {
                    state.memoryBody = chunk
                } else {
                    state.memoryBody?.append(chunk)
                }
            }
            state.received.bytesThisTime = Int64(count)
            state.received.totalBytes += Int64(count)
            return state.received
        }
        configuration.downloadProgress?(progress)
    }

    /// The final body ended (`error == nil`: completely) or failed.
    fileprivate func bodyDidEnd(error: (any Error)?) {
        let now = Date()
        state.withLock { state in
            if let last = state.metrics.transactions.indices.last { state.metrics.transactions[last].responseEnd = now }
            state.metrics.end = now
            _ = error == nil ? state.machine.bodyFinished() : state.machine.fail()
        }
    }

    /// Posts one of the request notifications about ``originalRequest`` on the main queue.
    private func postRequestNotification(_ name: Notification.Name, error: (any Error)?) {
        var userInfo: [String: any Sendable] = [CourierNotificationKey.request: originalRequest]
        if let error { userInfo[CourierNotificationKey.error] = error }
        CourierNotifier.post(name, object: nil, userInfo: userInfo, delivery: .mainQueue)
    }

    /// A `.stream` body ended; for the other sinks the run's end reports it.
    fileprivate func streamDidEnd(error: (any Error)?) {
        bodyDidEnd(error: error)
        if state.withLock({ $0.postsNotifications }) {
            postRequestNotification(.courierRequestDidFinish, error: error)
        }
    }

    /// Returns at once unless paused; then waits for ``resume()`` (or throws `URLError(.cancelled)` on ``cancel()``).
    /// Not reading is what stops the socket reads (backpressure), so the connection stays open while paused.
    fileprivate func waitWhilePaused() async throws {
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

    private func cancelledError() -> URLError {
        URLError(.cancelled, userInfo: [
            NSURLErrorFailingURLErrorKey: currentRequest.url as Any,
            NSLocalizedDescriptionKey: "The request was cancelled.",
        ])
    }
}

/// The error of a ``BodyDecision/refuse(_:)``, kept apart from the exchange's own cancellation.
private struct BodyRefusal: Error {
    let error: any Error
}

/// A `.stream` sink's body: counts progress, holds the body to its allowance, honours pause, and
/// ends the exchange.
private struct ObservedBody: AsyncSequence, Sendable {
    let base: ResponseBodyStream
    let exchange: Exchange
    let allowance: BodyAllowance

    func makeAsyncIterator() -> Iterator {
        Iterator(base: base.makeAsyncIterator(), exchange: exchange, allowance: allowance)
    }

    struct Iterator: AsyncIteratorProtocol {
        var base: ResponseBodyStream.Iterator
        let exchange: Exchange
        var allowance: BodyAllowance

        mutating func next() async throws -> Data? {
            do {
                try await exchange.waitWhilePaused()
                guard let chunk = try await base.next() else {
                    try allowance.finish()
                    exchange.streamDidEnd(error: nil)
                    return nil
                }
                if !allowance.isUnlimited { try allowance.admit(chunk.count) }
                try exchange.didReceive(chunk.count)
                return chunk
            } catch {
                exchange.streamDidEnd(error: error)
                throw error
            }
        }
    }
}

extension ResponseSink {
    var isStream: Bool {
        if case .stream = self { return true }
        return false
    }
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
