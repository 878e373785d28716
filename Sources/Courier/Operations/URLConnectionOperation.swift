import Foundation
import Logging
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An `Operation` that performs one URL request: AFNetworking 2.0's `AFURLConnectionOperation`.
///
/// Add it to an `OperationQueue` (or call ``start()``); the queue honours its dependencies and
/// `maxConcurrentOperationCount`, and a paused operation does not hold a slot. The transfer
/// itself is an ``Exchange`` (redirects, authentication, cookies, progress) run by the same
/// driver as a session task's, so operations and session tasks behave alike.
///
/// There is no `runLoopModes` property and no dedicated network thread: SwiftNIO's event loops
/// do the I/O, and every block runs on a dispatch queue (progress on the main queue, completion
/// on ``completionQueue``).
///
/// `@unchecked Sendable`: `Operation` is not Sendable, but every stored property of this class
/// lives in one `Mutex` (`storage`), state changes with their key-value notifications are
/// serialised by `transitionLock`, and the blocks are `@Sendable`; any member may be called from
/// any thread while the operation runs.
open class URLConnectionOperation: Operation, NSCopying, Codable, @unchecked Sendable {
    let storage: Mutex<OperationStorage>
    /// Starts, stops, cancels and completes the operation's attempts; keeps its waiters and retry count. A pause stops
    /// the exchange, and the resume continues with a new one (as AFNetworking's cancel-then-resume).
    let driver = ExchangeDriver(pauseMode: .restart)
    /// Serialises state transitions with their `willChangeValue`/`didChangeValue` pairs. A
    /// recursive lock because observers (the queue) read state while notified; the `Mutex` is
    /// never held while notifying.
    private let transitionLock = NSRecursiveLock()
    /// The group the completion block runs inside when ``completionGroup`` is `nil`, as
    /// AFNetworking's private group: it lets a batch wait for work the block queues itself.
    let privateCompletionGroup = DispatchGroup()
    /// Whether this operation posts its notifications: decided when it is made, so that it posts all or none.
    private let postsNotifications = NotificationDemand.operation.isPosted

    /// Creates an operation for `request`. The designated initializer.
    public required init(request: URLRequest) {
        storage = Mutex(OperationStorage(request: request))
        super.init()
    }

    /// Restores an archived operation (see ``OperationArchive``): ready (or finished), with its
    /// request, response, error and data; a download to a file continues after the bytes in the
    /// file when started. Set the blocks, streams and completion block again.
    /// - Throws: the decoder's error for what is not an archive, ``OperationArchiveError`` for an archive of another
    ///   format version or with an impossible value.
    public required convenience init(from decoder: any Decoder) throws {
        let archive = try OperationArchive(from: decoder)
        self.init(request: archive.request.makeRequest())
        try restore(from: archive)
    }

    /// Archives the operation, pausing it first (see ``OperationArchive``).
    open func encode(to encoder: any Encoder) throws {
        try makeArchive().encode(to: encoder)
    }

    /// A new, ready operation with this one's request, progress, authentication, redirect and
    /// cache blocks, completion queue and group, credential, response size limit, credential-storage flag, cookie
    /// jar, cache, security policy, transport and stages; not its output stream or file, completion block, user info or
    /// state (seed 000's copying caveats). Subclasses copy their own configuration too.
    open func copy(with zone: NSZone? = nil) -> Any {
        let copy = Self(request: request)
        storage.withLock { original in
            copy.storage.withLock { fresh in
                fresh.blocks = original.blocks
                fresh.completionQueue = original.completionQueue
                fresh.completionGroup = original.completionGroup
                fresh.settings = original.settings
                fresh.securityPolicy = original.securityPolicy
                fresh.proxy = original.proxy
                fresh.transport = original.transport
            }
        }
        return copy
    }

    // MARK: Request and response

    /// The request the operation sends.
    public var request: URLRequest { storage.withLock { $0.request } }

    /// The last response received, once its head has arrived.
    public var response: HTTPURLResponse? { storage.withLock { $0.response } }

    /// What the operation's latest exchange measured: each hop's request and response head (redirects and challenges
    /// included) and its timings, as a session task's metrics hold them. `nil` before the operation started; read it
    /// once the operation has finished for the whole exchange.
    public var metrics: ExchangeMetrics? { driver.exchange?.metrics }

    /// The error, if any, that ended the request; `URLError(.cancelled)` after ``cancel()``.
    open var error: (any Error)? { storage.withLock { $0.error } }

    /// The body received, once finished; `nil` when an ``outputStream`` or ``outputFileURL``
    /// received it instead (except an error status answering a resumed download, whose body is
    /// kept here).
    public var responseData: Data? { storage.withLock { $0.responseData } }

    /// The body bytes received so far, including those kept from before a pause.
    public var totalBytesRead: Int64 {
        driver.liveExchange?.receiveProgress.totalBytes ?? storage.withLock { $0.totalBytesRead }
    }

    /// ``responseData`` as text, decoded as ``HTTPResponseSerializer/string(for:data:)`` does: byte order mark, then
    /// the response's charset (any IANA name or alias `CharsetDecoding` resolves), UTF-8 when it names none.
    /// `nil` before the body is complete, when an ``outputStream`` or ``outputFileURL`` received it, or when it
    /// cannot be decoded: unlike AFNetworking, a charset Courier cannot decode is not read as UTF-8 instead.
    /// ``decodeResponseString()`` says why it is `nil`.
    public var responseString: String? {
        try? decodeResponseString()
    }

    /// ``responseData`` as text (see ``responseString``), throwing why it cannot be decoded. Courier's addition.
    ///
    /// - Returns: `nil` before the body is complete or when an ``outputStream`` or ``outputFileURL`` received it.
    /// - Throws: ``ResponseSerializationError/unsupportedCharset(name:response:data:)`` when the response names a
    ///   charset Courier cannot decode, ``ResponseSerializationError/undecodableText(encoding:response:data:)`` when
    ///   the bytes are not valid in the encoding.
    public func decodeResponseString() throws -> String? {
        let (response, data) = storage.withLock { ($0.response, $0.responseData) }
        guard let data else { return nil }
        return try HTTPResponseSerializer().string(for: response, data: data)
    }

    /// The encoding of the response text: the one its charset names (any IANA name or alias `CharsetDecoding`
    /// resolves). Default UTF-8, as in AFNetworking 2.0, when the response names no charset or one Courier cannot
    /// decode (``responseString`` is then `nil`, not UTF-8 text). A byte order mark in the body is not considered.
    public var responseStringEncoding: String.Encoding {
        HTTPResponseSerializer.mediaType(of: response)?.charset.flatMap { CharsetDecoding.encoding(forCharset: $0) } ?? .utf8
    }

    // MARK: Streams

    /// The stream the request body is read from: a proxy for the request's `httpBodyStream`.
    /// Set it before the operation starts. Default: the request's.
    public var inputStream: InputStream? {
        get { storage.withLock { $0.request.httpBodyStream } }
        set {
            nonisolated(unsafe) let stream = newValue
            storage.withLock { $0.request.httpBodyStream = stream }
        }
    }

    /// Where the body goes instead of memory. When set, ``responseData`` stays `nil`. The
    /// operation opens the stream when the transfer starts and closes it when the operation
    /// finishes. Bytes written cannot be taken back: if a resumed transfer gets the whole
    /// resource again (200), the operation fails with ``OperationError/outputCannotRestart(bytesWritten:)``;
    /// use ``outputFileURL`` for downloads that must survive a change on the server. Default `nil`
    /// (memory). Not archived or copied.
    public var outputStream: OutputStream? {
        get { storage.withLock { $0.output?.stream } }
        set {
            var target: OutputStreamTarget?
            if let newValue {
                nonisolated(unsafe) let stream = newValue
                target = OutputStreamTarget(stream, closedByOwner: true)
            }
            storage.withLock { $0.output = target }
        }
    }

    /// A file the body is written to (created or replaced), instead of memory; a paused or
    /// restored download continues after the bytes already in the file. ``responseData`` stays
    /// `nil`. Default `nil`. Courier's addition: AFNetworking used an `outputStream` to a file.
    public var outputFileURL: URL? {
        get { storage.withLock { $0.outputFileURL } }
        set { storage.withLock { $0.outputFileURL = newValue } }
    }

    /// The most bytes ``responseData`` may hold: a response whose body is longer fails with
    /// `URLError(.dataLengthExceedsMaximum)` (at once when its `Content-Length` says so, otherwise when
    /// the body passes the limit). Applies when the body goes to memory, not to ``outputStream`` or
    /// ``outputFileURL``. Default `nil`: no limit, as in AFNetworking — any server can then make the
    /// operation hold as much as it sends. Courier's addition.
    public var maximumResponseDataSize: Int64? {
        get { storage.withLock { $0.settings.maximumBodySize } }
        set { storage.withLock { $0.settings.maximumBodySize = newValue } }
    }

    /// The settings every exchange of the operation starts from; ``credential``, ``shouldUseCredentialStorage``,
    /// ``cookieJar``, ``cache``, ``interceptors``, ``logger``, ``telemetry``, ``stages`` and
    /// ``maximumResponseDataSize`` read and write them. Default: no credential, the process-wide cookie jar
    /// (``CookieJar/processShared``), cache (``HTTPCache/shared``) and credential store (`CredentialStore.shared`),
    /// content decoding on. Courier's addition.
    public var requestSettings: RequestSettings {
        get { storage.withLock { $0.settings } }
        set { storage.withLock { $0.settings = newValue } }
    }

    // MARK: Credentials, security, transport

    /// The credential for authentication challenges from the request's own origin (scheme, host and
    /// port); never sent to another origin a redirect leads to. Default `nil`. A credential stored for
    /// the challenge's protection space is used after it (and on other origins) when
    /// ``shouldUseCredentialStorage`` is true.
    public var credential: URLCredential? {
        get { storage.withLock { $0.settings.credential } }
        set { storage.withLock { $0.settings.credential = newValue } }
    }

    /// Whether `CredentialStore.shared` is consulted for challenges. Default `true`.
    public var shouldUseCredentialStorage: Bool {
        get { storage.withLock { $0.settings.credentialStore != nil } }
        set { storage.withLock { $0.settings.credentialStore = newValue ? .shared : nil } }
    }

    /// Where the operation's cookies are read and stored, for a request whose `httpShouldHandleCookies` is `true`.
    /// Default ``CookieJar/processShared``, the jar `.default` sessions use too, as AFNetworking's operations and
    /// sessions shared `NSHTTPCookieStorage`; `nil` sends and stores none.
    public var cookieJar: CookieJar? {
        get { storage.withLock { $0.settings.cookieJar } }
        set { storage.withLock { $0.settings.cookieJar = newValue } }
    }

    /// The HTTP cache the operation's request is answered from and its response stored in, by the request's
    /// `cachePolicy` (see `CacheStage`). Default ``HTTPCache/shared``, as `NSURLConnection` used the shared
    /// `NSURLCache`; `nil` disables caching.
    public var cache: HTTPCache? {
        get { storage.withLock { $0.settings.cache } }
        set { storage.withLock { $0.settings.cache = newValue } }
    }

    /// The policy the server's certificate must satisfy, enforced by the transport during the TLS
    /// handshake. Default one `SecurityPolicy.default` instance shared by every operation (no pinning, CA and host
    /// name validation). Operations sharing a policy instance share a connection pool.
    public var securityPolicy: SecurityPolicy {
        get { storage.withLock { $0.securityPolicy } }
        set { storage.withLock { $0.securityPolicy = newValue } }
    }

    /// The operation's request interceptors: adapters before every attempt, retriers after a failed one (see
    /// ``RequestInterceptor``, ``RetryPolicy``). A manager's operations start with its
    /// ``HTTPRequestOperationManager/interceptors``; append the operation's own after them. Default none.
    /// Courier's addition.
    public var interceptors: [any RequestInterceptor] {
        get { storage.withLock { $0.settings.interceptors } }
        set { storage.withLock { $0.settings.interceptors = newValue } }
    }

    /// Where the operation's request events go (see ``ExchangeConfiguration/logger``); the shared transports'
    /// connection pools do not log. Default ``ExchangeConfiguration/silentLogger``. Courier's addition.
    public var logger: Logger {
        get { storage.withLock { $0.settings.logger } }
        set { storage.withLock { $0.settings.logger = newValue } }
    }

    /// Where the operation's spans and measurements go (see ``Telemetry``). Default ``Telemetry/bootstrapped``.
    /// Courier's addition.
    public var telemetry: Telemetry {
        get { storage.withLock { $0.settings.telemetry } }
        set { storage.withLock { $0.settings.telemetry = newValue } }
    }

    /// How many times the operation's request was sent again by an interceptor's retry decision so far.
    public var retryCount: Int { driver.retryCount }

    /// Progress updates of one direction as an `AsyncSequence`, as ``SessionTask/progressUpdates(_:)`` gives a
    /// task's; it ends when the operation finishes. Totals carry on across a pause (the resumed request continues
    /// after the kept bytes). Only the newest update is kept for a slow reader. Courier's addition.
    public func progressUpdates(_ direction: TransferDirection = .download) -> AsyncStream<TransferProgress> {
        driver.progressUpdates(direction)
    }

    /// The proxies the operation's request goes through (see ``ProxyConfiguration``). Default `nil`: directly.
    /// Operations with the same policy instance and equal proxy settings share a connection pool. Ignored when
    /// ``transport`` is set. Courier's addition (AFNetworking had the system's proxy settings).
    public var proxy: ProxyConfiguration? {
        get { storage.withLock { $0.proxy } }
        set { storage.withLock { $0.proxy = newValue } }
    }

    /// The transport to use instead of the shared one for ``securityPolicy`` and ``proxy`` (one connection pool per
    /// policy instance and proxy, kept for the life of the process). Default `nil`. Courier's addition (for tests and custom engines).
    public var transport: (any HTTPTransport)? {
        get { storage.withLock { $0.transport } }
        set { storage.withLock { $0.transport = newValue } }
    }

    /// Stages of your own at the head of the operation's pipeline, outermost first: they see the request before
    /// the redirects, authentication, cookies and transport, and the final response after them (see
    /// ``ExchangePipeline``). Default: none. Courier's addition.
    public var stages: [any ExchangeStage] {
        get { storage.withLock { $0.settings.stages } }
        set { storage.withLock { $0.settings.stages = newValue } }
    }

    // MARK: Callback queues and user info

    /// The queue the completion block runs on; `nil` (the default) means the main queue.
    public var completionQueue: DispatchQueue? {
        get { storage.withLock { $0.completionQueue } }
        set { storage.withLock { $0.completionQueue = newValue } }
    }

    /// The dispatch group the completion block runs inside. Default `nil`: a private group.
    public var completionGroup: DispatchGroup? {
        get { storage.withLock { $0.completionGroup } }
        set { storage.withLock { $0.completionGroup = newValue } }
    }

    /// Anything the caller wants to keep with the operation. Default empty. Not archived.
    public var userInfo: [String: any Sendable] {
        get { storage.withLock { $0.userInfo } }
        set { storage.withLock { $0.userInfo = newValue } }
    }

    /// Runs once when the operation finishes (also when cancelled: check ``error`` for
    /// `URLError(.cancelled)`), on ``completionQueue`` inside ``completionGroup``, and is released
    /// afterwards, so capturing the operation creates no lasting cycle. Setting it after the
    /// operation finished does nothing. Not copied or archived.
    open override var completionBlock: (@Sendable () -> Void)? {
        get { storage.withLock { $0.completionBlock } }
        set { storage.withLock { $0.completionBlock = newValue } }
    }

    // MARK: Operation state

    /// The state machine's current state.
    public var state: OperationState { storage.withLock { $0.machine.state } }

    /// True when ready and the dependencies are finished, and always once cancelled (so a
    /// cancelled operation leaves its queue, even while paused).
    open override var isReady: Bool {
        let current = state
        if isCancelled && current != .finished { return true }
        return current == .ready && super.isReady
    }

    /// True while transferring.
    open override var isExecuting: Bool { state == .executing }

    /// True once finished (final).
    open override var isFinished: Bool { state == .finished }

    /// Always true: the operation runs on the network's event loops, not on the calling thread.
    open override var isAsynchronous: Bool { true }

    /// Whether the operation is paused.
    public var isPaused: Bool { state == .paused }

    /// Moves the state machine to `target`, posting the key-value notifications the queue watches. `alongside` runs
    /// once the move is made, with the state it was made from, before any other transition can begin: a pause
    /// detaches the transfer it stops there, so that a ``resume()`` from another thread, which may see the paused
    /// state at once, cannot start a transfer the pause would then take for its own.
    @discardableResult
    func transition(to target: OperationStateMachine.State, alongside: (OperationStateMachine.State) -> Void = { _ in }) -> Bool {
        transitionLock.lock()
        defer { transitionLock.unlock() }
        let cancelled = isCancelled
        let from = storage.withLock { $0.machine.state }
        guard storage.withLock({ $0.machine.canTransition(to: target, isCancelled: cancelled) }) else { return false }
        let keys = [from.observedKey, target.observedKey].compactMap { $0 }
        keys.forEach { willChangeValue(forKey: $0) }
        storage.withLock { _ = $0.machine.transition(to: target, isCancelled: cancelled) }
        alongside(from)
        keys.reversed().forEach { didChangeValue(forKey: $0) }
        return true
    }

    // MARK: Starting, pausing, cancelling

    /// Starts the transfer (a queue calls this). A cancelled operation finishes at once with
    /// `URLError(.cancelled)`; a paused, executing or finished one is left alone.
    open override func start() {
        if isCancelled {
            finishCancelledIfIdle()
            return
        }
        // The driver moves with the state, under the same lock: a pause from another thread finds both executing.
        var action = DriverStateMachine.Action.none
        guard transition(to: .executing, alongside: { _ in action = driver.resume() }) else { return }
        postNotification(.courierOperationDidStart)
        if case .startAttempt(let attempt) = action { launchAttempt(attempt) }
    }

    /// Pauses: the transfer stops and the operation neither executes nor counts as ready, so a
    /// queue keeps it (without using a slot) until ``resume()`` or ``cancel()``. Pausing a
    /// finished, cancelled or paused operation does nothing. The bytes received so far are kept
    /// (a base operation restarts the request on resume; ``HTTPRequestOperation`` asks for the
    /// rest with a range request).
    open func pause() {
        guard !isCancelled else { return }
        var stopped = false
        let paused = transition(to: .paused) { from in
            guard from == .executing, driver.pause() == .stopAttempt else { return }
            stopped = true
            storage.withLock { $0.keepsPartialOutput = true }
        }
        guard paused, stopped else { return }
        settleStoppedAttempt()
        postNotification(.courierOperationDidFinish)
    }

    /// Resumes a paused operation: it becomes ready, and starts again at once if it had started
    /// before (one paused before it ever started is left to its queue, or to ``start()``, so the
    /// queue's limits still hold). Does nothing unless paused.
    open func resume() {
        guard transition(to: .ready) else { return }
        if driver.hasStarted { start() }
    }

    /// Cancels: a running transfer stops and the operation finishes with `URLError(.cancelled)`;
    /// a paused one finishes at once; a ready one finishes when its queue starts it. Cancelling a
    /// finished operation does nothing.
    open override func cancel() {
        guard !isFinished, !isCancelled else { return }
        transitionLock.lock()
        willChangeValue(forKey: "isReady")
        super.cancel()
        didChangeValue(forKey: "isReady")
        transitionLock.unlock()
        switch state {
        case .executing:
            _ = driver.cancel()
        case .paused:
            _ = driver.cancel()
            _ = transition(to: .ready)
            finishCancelledIfIdle()
        case .ready, .finished:
            break
        }
    }

    private func finishCancelledIfIdle() {
        guard state == .ready else { return }
        storage.withLock { $0.error = URLError(.cancelled) }
        complete()
    }

    /// Posts one of the operation's notifications on the main queue, when the operation posts them.
    private func postNotification(_ name: Notification.Name) {
        if postsNotifications { CourierNotifier.post(name, object: self, delivery: .mainQueue) }
    }

    // MARK: Finishing

    /// Moves to finished, then runs the completion block once on the completion queue inside the
    /// completion group, and gives back the shutdown lease.
    func complete() {
        let context = completionContext
        let group = context.group
        // Holding the group across the state change means a waiter on the group cannot see it
        // empty between "finished" and the completion block being queued.
        group?.enter()
        guard transition(to: .finished) else {
            group?.leave()
            return
        }
        postNotification(.courierOperationDidFinish)
        let (block, lease) = storage.withLock { storage in
            defer {
                storage.completionBlock = nil
                storage.lease = nil
            }
            return (storage.completionBlock, storage.lease)
        }
        _ = driver.complete()
        driver.releaseWaiters()
        if block != nil || lease != nil {
            // The lease is given back after the block ran, so a shutdown waits for it.
            context.deliver {
                block?()
                lease?.release()
            }
        }
        group?.leave()
    }

    /// Where completion work runs: ``completionQueue`` (main when `nil`) inside
    /// ``completionGroup`` (the private group when `nil`).
    var completionContext: CompletionContext {
        storage.withLock { CompletionContext(queue: $0.completionQueue, group: $0.completionGroup ?? privateCompletionGroup) }
    }

    /// Returns when the operation has finished; cancelling the calling task cancels the operation.
    /// It does not start the operation.
    func finished() async {
        await withTaskCancellationHandler {
            await driver.finished()
        } onCancel: {
            self.cancel()
        }
    }

    // MARK: Subclass hooks

    /// Whether ``resume()`` continues with a range request for the rest of the body (`true` in
    /// ``HTTPRequestOperation``) instead of starting the request over (`false` here).
    open var resumesWithRange: Bool { false }

    /// Called on the transfer's task when the body is complete and the state is about to become
    /// finished. Subclasses may prepare derived values here; the default does nothing.
    open func transferDidFinish() {}
}

/// Errors of Courier's operation layer.
public enum OperationError: Error, Sendable, Equatable {
    /// A resumed transfer received the whole resource again (200) but the bytes already written to
    /// the operation's `outputStream` cannot be taken back.
    case outputCannotRestart(bytesWritten: Int64)
}
