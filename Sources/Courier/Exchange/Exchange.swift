import Foundation
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One request's whole life, shared by Courier's operations and session tasks.
///
/// It sends the request through its transport, follows redirects (each hop seen by the redirect
/// hook), answers Basic and Digest challenges, keeps cookies, streams the final body into its
/// sink with progress, pauses (stops reading, keeps the connection), and can be cancelled at any
/// moment. Its phases live in an ``ExchangeStateMachine``; this class only performs the I/O the
/// machine asks for.
///
/// ```swift
/// let exchange = Exchange(request: URLRequest(url: url), configuration: .init(transport: transport))
/// let result = try await exchange.result()
/// ```
public final class Exchange: Sendable {
    /// The request as given.
    public let originalRequest: URLRequest
    /// The transport, sink and hooks.
    public let configuration: ExchangeConfiguration

    private let machine: Mutex<ExchangeStateMachine>
    private let live: Mutex<LiveState>
    private let gate = PauseGate()

    private struct LiveState {
        var currentRequest: URLRequest
        var response: HTTPURLResponse?
        var sent = TransferProgress(bytesThisTime: 0, totalBytes: 0, totalBytesExpected: -1)
        var received = TransferProgress(bytesThisTime: 0, totalBytes: 0, totalBytesExpected: -1)
        /// The running task; `nil` once it has finished (see `finished`).
        var task: Task<ExchangeResult, any Error>?
        /// The outcome once the task has finished. A `.stream` result's body refers back to this
        /// exchange, so it is kept only until a caller of `result()` has it: holding it (or the
        /// finished task, which keeps its value) longer would be a reference cycle, one leaked
        /// exchange per request.
        var finished: Result<ExchangeResult, any Error>?
        var body: ResponseBodyStream?
        var metrics = ExchangeMetrics(fetchStart: Date())
    }

    /// Creates an exchange; nothing is sent until ``start()`` or ``result()``.
    public init(request: URLRequest, configuration: ExchangeConfiguration) {
        self.originalRequest = request
        self.configuration = configuration
        self.machine = Mutex(ExchangeStateMachine(maximumRedirects: configuration.maximumRedirects))
        self.live = Mutex(LiveState(currentRequest: request))
    }

    // MARK: Observing

    /// The current phase.
    public var phase: ExchangeStateMachine.Phase { machine.withLock { $0.phase } }
    /// Whether reading is paused.
    public var isPaused: Bool { machine.withLock { $0.isPaused } }
    /// The request on the wire now (after redirects).
    public var currentRequest: URLRequest { live.withLock { $0.currentRequest } }
    /// The latest response head, once one has arrived.
    public var response: HTTPURLResponse? { live.withLock { $0.response } }
    /// Request body bytes sent so far, and expected.
    public var sendProgress: TransferProgress { live.withLock { $0.sent } }
    /// Response body bytes delivered so far, and expected (for a resumed download: including the
    /// kept bytes).
    public var receiveProgress: TransferProgress { live.withLock { $0.received } }
    /// Timings so far.
    public var metrics: ExchangeMetrics { live.withLock { $0.metrics } }

    // MARK: Controlling

    /// Starts the exchange on its own task. Calling it again does nothing.
    public func start() {
        let started = machine.withLock { $0.start() } == .sendRequest
        guard started else { return }
        live.withLock { $0.metrics.fetchStart = Date() }
        let task = Task { [self] in
            ExchangeNotifier.post(.courierRequestDidStart, request: originalRequest, error: nil)
            let outcome: Result<ExchangeResult, any Error>
            do {
                outcome = .success(try await run())
            } catch {
                _ = machine.withLock { $0.fail() }
                outcome = .failure(finalError(error))
            }
            if case .failure = outcome {
                ExchangeNotifier.post(.courierRequestDidFinish, request: originalRequest, error: outcome.failure)
            } else if configuration.sink.isStream == false {
                ExchangeNotifier.post(.courierRequestDidFinish, request: originalRequest, error: nil)
            }
            configuration.completion?(outcome)
            live.withLock { state in
                state.task = nil
                state.finished = outcome
            }
            return try outcome.get()
        }
        live.withLock { state in
            // A task that already finished has stored its outcome; keeping it would keep its value.
            if state.finished == nil { state.task = task }
        }
        // A cancel() that raced with start() found no task to cancel.
        if phase == .cancelled { task.cancel() }
    }

    /// Starts the exchange if needed and waits for its result. Cancelling the calling task
    /// cancels the exchange.
    public func result() async throws -> ExchangeResult {
        start()
        let (task, finished) = live.withLock { ($0.task, $0.finished) }
        let outcome: Result<ExchangeResult, any Error>
        if let task {
            outcome = await withTaskCancellationHandler {
                await task.result
            } onCancel: {
                self.cancel()
            }
        } else if let finished {
            outcome = finished
        } else {
            throw cancelledError()
        }
        releaseStreamedBody()
        return try outcome.get()
    }

    /// Drops the stored outcome's body (a caller has it now), which ends the reference cycle
    /// exchange → outcome → body → exchange. Later callers get the result without a body.
    private func releaseStreamedBody() {
        live.withLock { state in
            guard case .success(let result)? = state.finished, result.body != nil else { return }
            state.finished = .success(ExchangeResult(
                request: result.request, response: result.response, data: result.data, body: nil,
                bytesReceived: result.bytesReceived, redirectCount: result.redirectCount,
                resumption: result.resumption, metrics: result.metrics
            ))
        }
    }

    /// Stops reading the response (the connection stays open) until ``resume()``.
    public func pause() {
        // The gate follows the machine's flag, also for a pause before the exchange starts.
        let paused = machine.withLock { machine in
            _ = machine.pause()
            return machine.isPaused
        }
        if paused { gate.close() }
    }

    /// Reads again after ``pause()``.
    public func resume() {
        let paused = machine.withLock { machine in
            _ = machine.resume()
            return machine.isPaused
        }
        if !paused { gate.open() }
    }

    /// Cancels the exchange in whatever phase it is; it fails with `URLError(.cancelled)`.
    public func cancel() {
        let action = machine.withLock { $0.cancel() }
        gate.cancel()
        guard action == .cancelTransport else { return }
        let (task, body) = live.withLock { ($0.task, $0.body) }
        body?.cancel()
        task?.cancel()
    }

    // MARK: The lifecycle

    private func run() async throws -> ExchangeResult {
        // The kept bytes are continued only with a range request that can prove the resource unchanged;
        // without one (no validator, or after a mismatch) the request goes out whole and replaces them.
        var resumption = configuration.resumption.flatMap { $0.canResume ? $0 : nil }
        var request = resumption?.applied(to: originalRequest) ?? originalRequest
        var hop = HopState(body: configuration.body ?? RequestBody(request: request))
        var attempts: [AuthenticationChallenge.ProtectionSpace: Int] = [:]

        while true {
            let transportRequest = try makeTransportRequest(request, hop: hop)
            live.withLock {
                $0.metrics.transactions.append(.init(request: request, requestStart: Date()))
            }
            let response = try await configuration.transport.send(transportRequest)
            live.withLock {
                $0.response = response.head
                $0.currentRequest = request
                $0.body = response.body
                $0.metrics.transactions[$0.metrics.transactions.count - 1].response = response.head
                $0.metrics.transactions[$0.metrics.transactions.count - 1].httpVersion = response.httpVersion
                $0.metrics.transactions[$0.metrics.transactions.count - 1].connection = response.connection
                $0.metrics.transactions[$0.metrics.transactions.count - 1].staleConnectionRetries = response.staleConnectionRetries
                $0.metrics.transactions[$0.metrics.transactions.count - 1].responseStart = Date()
            }
            storeCookies(from: response, for: request)
            let kind: ExchangeStateMachine.HeadKind = resumption?.outcome(of: response.head) == .mismatch
                ? .resumptionMismatch
                : headKind(of: response.head, request: request)
            let action = machine.withLock { $0.receivedHead(kind) }

            switch action {
            case .prepareFollowUp(.redirect):
                if let next = try await redirect(after: response, from: request) {
                    try await abandon(response.body)
                    try followUp()
                    hop.redirect(status: response.head.statusCode, method: (request.httpMethod ?? "GET").uppercased())
                    request = next
                    continue
                }
            case .prepareFollowUp(.authentication):
                if let answer = try await authorization(for: response, request: request, attempts: &attempts) {
                    try await abandon(response.body)
                    try followUp()
                    hop.authorize(answer)
                    continue
                }
            case .prepareFollowUp(.restart):
                try await abandon(response.body)
                try followUp()
                resumption = nil
                request = DownloadResumption.removed(from: request)
                continue
            case .deliverBody:
                try refuseUnaskedPartialContent(response, request: request)
                return try await deliver(response, request: request, hop: hop, resumption: resumption)
            default:
                response.body.cancel()
                throw cancelledError()
            }
            // The follow-up was declined: this response is the result.
            guard machine.withLock({ $0.decline() }) == .deliverBody else {
                response.body.cancel()
                throw cancelledError()
            }
            try refuseUnaskedPartialContent(response, request: request)
            return try await deliver(response, request: request, hop: hop, resumption: resumption)
        }
    }

    /// What changes from one hop to the next: the body and the credential sent.
    private struct HopState {
        var body: RequestBody?
        var sendsBody = true
        var isFirst = true
        var authorization: (header: String, credential: URLCredential, space: AuthenticationChallenge.ProtectionSpace)?

        init(body: RequestBody?) {
            self.body = body
        }

        mutating func redirect(status: Int, method: String) {
            if RedirectRule.dropsBody(status: status, method: method) { sendsBody = false }
            authorization = nil
            isFirst = false
        }

        mutating func authorize(_ answer: (header: String, credential: URLCredential, space: AuthenticationChallenge.ProtectionSpace)) {
            authorization = answer
            isFirst = false
        }
    }

    private func followUp() throws {
        switch machine.withLock({ $0.follow() }) {
        case .sendRequest:
            return
        case .fail(.tooManyRedirects(let limit)):
            throw URLError(.httpTooManyRedirects, userInfo: [
                NSURLErrorFailingURLErrorKey: currentRequest.url as Any,
                NSLocalizedDescriptionKey: "Stopped after \(limit) redirects.",
            ])
        default:
            throw cancelledError()
        }
    }

    private func makeTransportRequest(_ request: URLRequest, hop: HopState) throws -> TransportRequest {
        guard let url = request.url else {
            throw URLError(.badURL, userInfo: [NSLocalizedDescriptionKey: "The request has no URL."])
        }
        var headers = (request.allHTTPHeaderFields ?? [:]).map { (name: $0.key, value: $0.value) }
        if let jar = configuration.cookieJar, request.httpShouldHandleCookies, let cookies = jar.cookieHeader(for: url) {
            headers.removeAll { $0.name.isHeaderName("Cookie") }
            headers.append((name: "Cookie", value: cookies))
        }
        if let authorization = hop.authorization {
            headers.removeAll { $0.name.isHeaderName("Authorization") }
            headers.append((name: "Authorization", value: authorization.header))
        }
        let body: RequestBody? = hop.sendsBody ? try bodyForHop(hop, request: request) : nil
        let expected: Int64 = body.map { $0.length ?? -1 } ?? 0
        live.withLock { $0.sent = TransferProgress(bytesThisTime: 0, totalBytes: 0, totalBytesExpected: expected) }
        var transportRequest = TransportRequest(
            url: url,
            method: request.httpMethod ?? "GET",
            headers: headers,
            body: body,
            timeoutInterval: request.timeoutInterval
        )
        if body != nil {
            transportRequest.didSendBodyBytes = { [weak self] count in self?.didSend(count) }
        }
        return transportRequest
    }

    private func bodyForHop(_ hop: HopState, request: URLRequest) throws -> RequestBody? {
        guard let body = hop.body else { return nil }
        guard !hop.isFirst, case .inputStream = body.source, let newBodyStream = configuration.newBodyStream else {
            return body
        }
        return RequestBody(source: .inputStream({
            guard let stream = newBodyStream(request) else { throw URLError(.requestBodyStreamExhausted) }
            return stream
        }), length: body.length)
    }

    private func didSend(_ count: Int64) {
        let progress = live.withLock { state in
            state.sent.bytesThisTime = count
            state.sent.totalBytes += count
            return state.sent
        }
        configuration.uploadProgress?(progress)
    }

    private func headKind(of response: HTTPURLResponse, request: URLRequest) -> ExchangeStateMachine.HeadKind {
        if configuration.followsRedirects, RedirectRule.redirectStatusCodes.contains(response.statusCode) {
            return .redirect
        }
        if response.statusCode == 401, response.value(forHTTPHeaderField: "WWW-Authenticate") != nil {
            return .challenge
        }
        return .final
    }

    /// The next request of a redirect, or `nil` to deliver the 3xx response.
    /// - Throws: `URLError(.badURL)` for a `Location` no request can go to (a port out of range, a host
    ///   with forbidden characters); the 3xx response is ``response`` and the error's
    ///   ``Exchange/redirectResponseKey``.
    private func redirect(after response: TransportResponse, from request: URLRequest) async throws -> URLRequest? {
        guard let proposed = RedirectRule.nextRequest(after: response.head, for: request) else { return nil }
        var next: URLRequest? = proposed
        if let handler = configuration.redirectHandler { next = await handler(proposed, response.head) }
        guard let next, let url = next.url else { return nil }
        do {
            _ = try RequestURLCheck.check(url)
        } catch {
            response.body.cancel()
            throw error.urlError(for: url, userInfo: [Self.redirectResponseKey: response.head])
        }
        return next
    }

    /// The user-info key of the 3xx response in the error of a redirect that could not be followed.
    public static let redirectResponseKey = "CourierRedirectResponse"

    /// A `206` is a part of something only a range request can ask for; to a request without `Range`
    /// it would be taken for the whole body.
    /// - Throws: `URLError(.badServerResponse)`.
    private func refuseUnaskedPartialContent(_ response: TransportResponse, request: URLRequest) throws {
        guard response.head.statusCode == 206, request.value(forHTTPHeaderField: "Range") == nil else { return }
        response.body.cancel()
        throw URLError(.badServerResponse, userInfo: [
            NSURLErrorFailingURLErrorKey: request.url as Any,
            NSLocalizedDescriptionKey: "The server answered 206 Partial Content to a request that asked for no range.",
        ])
    }

    private func storeCookies(from response: TransportResponse, for request: URLRequest) {
        guard let jar = configuration.cookieJar, request.httpShouldHandleCookies, let url = request.url else { return }
        let values = response.headerFields.filter { $0.name.isHeaderName("Set-Cookie") }.map(\.value)
        if !values.isEmpty { jar.store(setCookieHeaders: values, for: url) }
    }

    /// Drops a body that is not the result (a redirect's or a challenge's). After a request without
    /// a body, the response is read to its end so the connection can be reused (a large one is cut
    /// off instead). After a request with a body the connection is closed: a server that answers a
    /// redirect or a challenge often never reads the upload, and the engine would wait for ever to
    /// finish a request the server has given up on.
    private func abandon(_ body: ResponseBodyStream) async throws {
        defer { markResponseEnd() }
        guard sendProgress.totalBytesExpected == 0 else {
            body.cancel()
            return
        }
        do {
            _ = try await body.collect(upTo: 1 << 20)
        } catch is ResponseBodyTooLargeError {
            return
        } catch {
            if phase == .cancelled { throw cancelledError() }
        }
    }

    // MARK: Authentication

    private func authorization(
        for response: TransportResponse,
        request: URLRequest,
        attempts: inout [AuthenticationChallenge.ProtectionSpace: Int]
    ) async throws -> (header: String, credential: URLCredential, space: AuthenticationChallenge.ProtectionSpace)? {
        guard let url = request.url, let host = url.host else { return nil }
        let headers = response.headerFields.filter { $0.name.isHeaderName("WWW-Authenticate") }.map(\.value)
        let schemes = ChallengeParser.schemes(from: headers)
        guard let scheme = schemes.first(where: { $0.name == "digest" && DigestHash(name: $0.parameters["algorithm"] ?? "MD5") != nil })
            ?? schemes.first(where: { $0.name == "basic" })
        else { return nil }

        let space = AuthenticationChallenge.ProtectionSpace(
            host: host.lowercased(),
            port: url.port ?? (url.scheme?.lowercased() == "https" ? 443 : 80),
            scheme: url.scheme?.lowercased() ?? "http",
            realm: scheme.realm,
            authenticationMethod: scheme.name
        )
        let failures = attempts[space, default: 0]
        guard machine.withLock({ $0.authenticationRetries }) < configuration.maximumAuthenticationAttempts else { return nil }
        // The configured credential was given for the request's own origin; another origin reached by a
        // redirect gets it only through the credential store's entry for its protection space or an
        // explicit answer of the challenge handler (curl's rule without --location-trusted).
        let ownCredential = originalRequest.url.map(Origin.init) == Origin(url) ? configuration.credential : nil
        let challenge = AuthenticationChallenge(
            scheme: scheme,
            protectionSpace: space,
            previousFailureCount: failures,
            proposedCredential: failures > 0 ? ownCredential : nil,
            failureResponse: response.head,
            request: request
        )
        let disposition = await configuration.challengeHandler?(challenge) ?? .performDefaultHandling
        let credential: URLCredential?
        switch disposition {
        case .useCredential(let chosen):
            credential = chosen
        case .performDefaultHandling:
            // A credential that failed once is not sent again.
            credential = failures == 0
                ? ownCredential ?? configuration.credentialStore?.credential(host: space.host, port: space.port, realm: space.realm)
                : nil
        case .continueWithoutCredential:
            credential = nil
        case .cancel:
            cancel()
            throw cancelledError()
        }
        guard let credential, let user = credential.user, let password = credential.password else { return nil }
        attempts[space] = failures + 1

        let header: String?
        if scheme.name == "digest" {
            var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
            components?.scheme = nil
            components?.host = nil
            components?.port = nil
            components?.user = nil
            components?.password = nil
            components?.fragment = nil
            let path = components?.percentEncodedPath ?? "/"
            let uri = (path.isEmpty ? "/" : path) + (components?.percentEncodedQuery.map { "?" + $0 } ?? "")
            header = AuthorizationHeader.digest(
                scheme: scheme, user: user, password: password,
                method: (request.httpMethod ?? "GET").uppercased(), uri: uri
            )
        } else {
            header = AuthorizationHeader.basic(user: user, password: password)
        }
        return header.map { ($0, credential, space) }
    }

    // MARK: Delivering the body

    private func deliver(
        _ response: TransportResponse,
        request: URLRequest,
        hop: HopState,
        resumption: DownloadResumption?
    ) async throws -> ExchangeResult {
        let outcome = resumptionOutcome(of: response.head, activeResumption: resumption)
        let continuation: ContentRange? = if case .continued = outcome { resumption?.continuation(in: response.head) } else { nil }
        let kept = continuation?.start ?? 0
        let length = continuation?.length ?? response.head.expectedContentLength
        let (total, overflow) = kept.addingReportingOverflow(length)
        let received = TransferProgress(bytesThisTime: 0, totalBytes: kept, totalBytesExpected: length < 0 || overflow ? -1 : total)
        live.withLock { $0.received = received }
        var allowance = BodyAllowance(exactLength: continuation?.length, maximum: configuration.maximumBodySize, kept: kept, url: request.url)
        do {
            try allowance.checkAnnounced(response.head.expectedContentLength)
        } catch {
            response.body.cancel()
            throw error
        }
        rememberWorkingCredential(hop, response: response.head)
        configuration.didReceiveResponse?(response.head)
        if let outcome { configuration.didDecideResumption?(outcome, received) }
        let redirects = machine.withLock { $0.redirectCount }
        func result(data: Data?, body: ResponseBodyStream?) -> ExchangeResult {
            ExchangeResult(
                request: request, response: response.head, data: data, body: body,
                bytesReceived: receiveProgress.totalBytes - kept, redirectCount: redirects,
                resumption: outcome, metrics: metrics
            )
        }

        if outcome == .alreadyComplete {
            response.body.cancel()
            _ = machine.withLock { $0.bodyFinished() }
            markResponseEnd()
            return result(data: Data(), body: nil)
        }
        guard var writer = try sink(for: outcome, kept: kept).makeWriter() else {
            let observed = ObservedBody(base: response.body, exchange: self, allowance: allowance)
            return result(data: nil, body: ResponseBodyStream(observed, cancel: response.body.cancel))
        }
        do {
            for try await chunk in response.body {
                if !allowance.isUnlimited { try allowance.admit(chunk.count) }
                try await writer.write(chunk)
                didReceive(chunk.count)
                try await gate.waitWhilePaused()
            }
            try allowance.finish()
            let data = try await writer.finish()
            _ = machine.withLock { $0.bodyFinished() }
            markResponseEnd()
            return result(data: data, body: nil)
        } catch {
            await writer.abandon()
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
        default:
            return configuration.sink
        }
    }

    private func markResponseEnd() {
        let now = Date()
        live.withLock { state in
            guard !state.metrics.transactions.isEmpty else { return }
            state.metrics.transactions[state.metrics.transactions.count - 1].responseEnd = now
            state.metrics.end = now
        }
    }

    fileprivate func didReceive(_ count: Int) {
        let progress = live.withLock { state in
            state.received.bytesThisTime = Int64(count)
            state.received.totalBytes += Int64(count)
            return state.received
        }
        configuration.downloadProgress?(progress)
    }

    fileprivate func streamDidEnd(error: (any Error)?) {
        markResponseEnd()
        if error == nil {
            _ = machine.withLock { $0.bodyFinished() }
        } else {
            _ = machine.withLock { $0.fail() }
        }
        ExchangeNotifier.post(.courierRequestDidFinish, request: originalRequest, error: error)
    }

    fileprivate func waitWhilePaused() async throws {
        try await gate.waitWhilePaused()
    }

    private func rememberWorkingCredential(_ hop: HopState, response: HTTPURLResponse) {
        guard let answer = hop.authorization, response.statusCode != 401,
              originalRequest.url != nil, let store = configuration.credentialStore else { return }
        store.set(answer.credential, host: answer.space.host, port: answer.space.port, realm: answer.space.realm)
    }

    // MARK: Errors

    private func cancelledError() -> URLError {
        URLError(.cancelled, userInfo: [
            NSURLErrorFailingURLErrorKey: currentRequest.url as Any,
            NSLocalizedDescriptionKey: "The request was cancelled.",
        ])
    }

    private func finalError(_ error: any Error) -> any Error {
        if phase == .cancelled || error is CancellationError { return cancelledError() }
        if let urlError = error as? URLError, urlError.code == .cancelled { return cancelledError() }
        return error
    }
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
                exchange.didReceive(chunk.count)
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

extension Result {
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
