import Foundation
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A request run by a ``URLSessionManager``, shaped like `URLSessionTask`: the superclass of
/// ``DataTask``, ``UploadTask`` and ``DownloadTask``.
///
/// A task is a thin façade over an `ExchangeDriver` (the same kind an operation uses): the driver
/// decides when the exchange starts, suspends, is cancelled and completes, and keeps the progress; the
/// exchange does the redirects, the authentication and the cookies; the task adds URLSession's states,
/// `Progress` objects and the manager's delegate blocks. Tasks start suspended: nothing is sent until
/// ``resume()``.
///
/// Not meant to be subclassed outside Courier. All mutable state is behind `shared`'s `Mutex` and the
/// driver's, which is what makes the `@unchecked Sendable` sound (the class is not final only so that the
/// three task kinds can share this code).
public class SessionTask: @unchecked Sendable, CustomStringConvertible {
    /// A number unique among the tasks of the manager that made the task.
    public let taskIdentifier: Int
    /// The request as the task was created with it (before the session's headers and redirects).
    public let originalRequest: URLRequest?
    /// The progress of the upload (request body): `completedUnitCount` is bytes sent. Made when first read (unless
    /// it joined the current progress when the task was made), with the bytes sent so far.
    public var uploadProgress: Progress { progressObject(.upload) }
    /// The progress of the download (response body): `completedUnitCount` is bytes received. Made when first read
    /// (unless it joined the current progress when the task was made), with the bytes received so far.
    public var downloadProgress: Progress { progressObject(.download) }

    /// The manager that made the task; it keeps the task until the task completes.
    let manager: URLSessionManager
    /// The task's life, progress and waiters. A suspend holds the connection, as URLSession's.
    let driver = ExchangeDriver(pauseMode: .holdConnection)
    private let shared: Mutex<Shared>
    /// The `Progress` objects, once made: a `Progress` costs an allocation and a lock per update, and most requests
    /// never have theirs read.
    private let progressObjects: Mutex<ProgressObjects>

    private struct ProgressObjects {
        var upload: Progress?
        var download: Progress?

        subscript(direction: TransferDirection) -> Progress? {
            get { direction == .upload ? upload : download }
            set { if direction == .upload { upload = newValue } else { download = newValue } }
        }
    }

    private struct Shared {
        var request: URLRequest?
        var response: HTTPURLResponse?
        var error: (any Error)?
        var timedOut = false
        var description: String?
        var hasProgressBlocks = false
        var rejected = false
        var interceptors: [any RequestInterceptor] = []
    }

    /// - Parameter reports: Which direction ``progress`` reports: that `Progress` becomes a child of
    ///   `Progress.current()` when one is current with pending units, as AFNetworking's sessions attach a
    ///   task's progress; the other direction's never does.
    init(identifier: Int, request: URLRequest?, manager: URLSessionManager, reports: TransferDirection = .download) {
        taskIdentifier = identifier
        originalRequest = request
        self.manager = manager
        // `Progress(totalUnitCount:)` joins the current progress (taking its pending units), so the reported one
        // is made now when there is one; otherwise each is made on its own when first read.
        var objects = ProgressObjects()
        if Progress.current() != nil { objects[reports] = Progress(totalUnitCount: -1) }
        progressObjects = Mutex(objects)
        shared = Mutex(Shared(request: request))
    }

    /// `direction`'s `Progress`, made now (with the progress so far) if it was not.
    private func progressObject(_ direction: TransferDirection) -> Progress {
        progressObjects.withLock { objects in
            if let made = objects[direction] { return made }
            let made = Progress(parent: nil, userInfo: nil)
            Self.update(made, to: direction == .upload ? driver.sent : driver.received)
            objects[direction] = made
            return made
        }
    }

    private static func update(_ object: Progress, to progress: TransferProgress) {
        object.totalUnitCount = progress.totalBytesExpected
        object.completedUnitCount = progress.totalBytes
    }

    /// Records `progress` of `direction`: in its `Progress` when made, then with the driver (which tells the
    /// observers, whose blocks read that `Progress`). A `Progress` made between the two reads the driver's older
    /// value, so it is brought up to date after.
    private func record(_ progress: TransferProgress, _ direction: TransferDirection) {
        let existing = progressObjects.withLock { $0[direction] }
        if let existing { Self.update(existing, to: progress) }
        driver.report(progress, direction)
        if existing == nil, let made = progressObjects.withLock({ $0[direction] }) { Self.update(made, to: progress) }
    }

    // MARK: Retries

    /// This task's own request interceptors, run after the session's (``SessionConfiguration/interceptors``).
    /// Set before ``resume()``; later changes do not reach a running task. Default none.
    public var interceptors: [any RequestInterceptor] {
        get { shared.withLock { $0.interceptors } }
        set { shared.withLock { $0.interceptors = newValue } }
    }

    /// How many times the task's request was sent again by an interceptor's retry decision. Default 0.
    public var retryCount: Int { driver.retryCount }

    /// Counts a retry about to happen.
    func recordRetry() {
        driver.recordRetry()
    }

    // MARK: Observing

    /// The request on the wire now: the original one with the session's headers, after redirects.
    public var currentRequest: URLRequest? { driver.exchange?.currentRequest ?? shared.withLock { $0.request } }
    /// The response head, once it arrived.
    public var response: URLResponse? { shared.withLock { $0.response } }
    /// The task's exchange, once it runs.
    var exchange: Exchange? { driver.exchange }
    /// Why the task failed, once it completed; `nil` on success. Cancellation is
    /// `URLError(.cancelled)`.
    public var error: (any Error)? { shared.withLock { $0.error } }
    /// Where the task is in its life.
    public var state: SessionTaskState { SessionTaskState(driver.phase) }
    /// Request body bytes sent.
    public var countOfBytesSent: Int64 { driver.sent.totalBytes }
    /// Request body bytes to send, or -1 when unknown (`NSURLSessionTransferSizeUnknown`).
    public var countOfBytesExpectedToSend: Int64 { driver.sent.totalBytesExpected }
    /// Response body bytes received (for a resumed download: including the bytes kept on disk).
    public var countOfBytesReceived: Int64 { driver.received.totalBytes }
    /// Response body bytes expected, or -1 when the response has no `Content-Length`.
    public var countOfBytesExpectedToReceive: Int64 { driver.received.totalBytesExpected }
    /// The task's progress: the download for data and download tasks, the upload for upload tasks.
    public var progress: Progress { downloadProgress }
    /// Free text for the caller. Default `nil`.
    public var taskDescription: String? {
        get { shared.withLock { $0.description } }
        set { shared.withLock { $0.description = newValue } }
    }

    /// The task kind and identifier, with the URL.
    public var description: String {
        "\(type(of: self))(\(taskIdentifier), \(originalRequest?.url?.absoluteString ?? "no URL"))"
    }

    /// Progress updates of one direction as an `AsyncSequence`; it ends when the task completes.
    /// Only the newest update is kept for a slow reader.
    public func progressUpdates(_ direction: TransferDirection = .download) -> AsyncStream<TransferProgress> {
        driver.progressUpdates(direction)
    }

    // MARK: Controlling

    /// Starts the task, or reads again after ``suspend()``. Does nothing when running or finished.
    public func resume() {
        switch driver.resume() {
        case .startAttempt(let attempt):
            // The one task of a fire-and-forget resume: it runs the exchange and completes the task.
            driver.launch(attempt: attempt) { [self] attempt in await execute(attempt: attempt) }
        case .resumeExchange:
            break
        case .none, .pauseExchange, .stopAttempt, .cancelAttempt, .completeCancelled:
            return
        }
        postNotification(.courierTaskDidResume)
    }

    /// Resumes a task that was never resumed and runs it in the calling task (so its task-local values reach the
    /// pipeline's stages); returns when the task has completed. Returns `false` at once, doing nothing, for a task
    /// that was resumed before.
    func runInCallingTask() async -> Bool {
        guard let attempt = driver.start() else { return false }
        postNotification(.courierTaskDidResume)
        await execute(attempt: attempt)
        return true
    }

    /// Stops reading the response; the connection stays open, and the server waits (TCP
    /// backpressure). ``resume()`` continues with the same bytes.
    public func suspend() {
        guard driver.pause() == .pauseExchange else { return }
        postNotification(.courierTaskDidSuspend)
    }

    /// Cancels the task; it completes with `URLError(.cancelled)`.
    public func cancel() {
        // A running or suspended task's exchange was cancelled by the driver; it completes through its own end.
        guard driver.cancel() == .completeCancelled else { return }
        Task { [self] in
            await finish(response: nil, error: URLError(.cancelled, userInfo: [
                NSURLErrorFailingURLErrorKey: originalRequest?.url as Any,
                NSLocalizedDescriptionKey: "The task was cancelled before it started.",
            ]))
        }
    }

    /// Waits until the task has completed (its completion delivered to the delegate queue).
    func waitUntilCompleted() async {
        await driver.finished()
    }

    // MARK: Kinds

    /// The exchange settings of this task kind, on top of the session's.
    func configure(_ configuration: inout ExchangeConfiguration) {}

    /// Runs the exchange to its end and calls ``finish(response:error:)``.
    func run(_ exchange: Exchange) async {
        do {
            let result = try await exchange.result()
            await finish(response: result.response, error: nil)
        } catch {
            await finish(response: exchange.response, error: error)
        }
    }

    /// Queues this kind's completion handler and the did-complete notification on the completion
    /// queue. Called on the delegate queue after the did-complete block.
    func deliverCompletion(error: (any Error)?) {
        guard postsNotifications else { return }
        var userInfo: [String: any Sendable] = [:]
        if let error { userInfo[SessionNotificationKey.error] = error }
        postNotification(.courierTaskDidComplete, userInfo: userInfo)
    }

    // MARK: Notifications

    /// Whether this task posts its notifications: decided when it is made, so that it posts all of them or none.
    let postsNotifications = NotificationDemand.task.isPosted

    /// Posts `name` about this task on the completion queue, when the task posts its notifications.
    func postNotification(_ name: Notification.Name, userInfo: [String: any Sendable] = [:]) {
        guard postsNotifications else { return }
        CourierNotifier.post(name, object: self, userInfo: userInfo, delivery: .completion(manager.completionContext))
    }

    // MARK: Running

    /// Whether the task has a per-task progress block (run on the delegate queue).
    var hasProgressBlocks: Bool {
        shared.withLock { $0.hasProgressBlocks }
    }

    /// Adds the manager's per-task progress blocks, run on the delegate queue with the task's `Progress`.
    func setProgressBlocks(upload: URLSessionManager.ProgressBlock?, download: URLSessionManager.ProgressBlock?) {
        let queue = manager.delegateQueue
        if let upload {
            driver.addProgressBlock(.upload) { [uploadProgress] _ in queue.async { upload(uploadProgress) } }
        }
        if let download {
            driver.addProgressBlock(.download) { [downloadProgress] _ in queue.async { download(downloadProgress) } }
        }
        shared.withLock { $0.hasProgressBlocks = upload != nil || download != nil }
    }

    /// Marks a task made by an invalidated session: it completes with an error once resumed.
    func reject() {
        shared.withLock { $0.rejected = true }
    }

    /// Marks the task running without an exchange of its own (a data task's body handed over).
    func forceRunning() {
        _ = driver.resume()
    }

    /// Completes the task without calling any block (a data task that became a download task).
    func finishQuietly(response: HTTPURLResponse) async {
        guard driver.complete(recording: { shared.withLock { $0.response = response } }) else { return }
        driver.releaseWaiters()
        manager.forget(self)
    }

    /// Runs the task from its first request to its completion, in the calling task.
    private func execute(attempt: Int) async {
        if shared.withLock({ $0.rejected }) {
            await finish(response: nil, error: URLError(.cancelled, userInfo: [
                NSURLErrorFailingURLErrorKey: originalRequest?.url as Any,
                NSLocalizedDescriptionKey: "The session was invalidated before the task was created.",
            ]))
            return
        }
        var configuration = manager.exchangeConfiguration(for: self)
        configure(&configuration)
        configuration.deadline = ContinuousClock.now.advanced(
            by: .seconds(min(max(0, manager.configuration.timeoutIntervalForResource), RetryPolicy.longestRetryAfter))
        )
        let request = manager.configuration.prepared(originalRequest ?? URLRequest(url: URL(fileURLWithPath: "/")))
        let exchange = Exchange(request: request, configuration: configuration)
        // The resource timeout, kept with the session's other deadlines by one timer.
        manager.resourceDeadlines.add(self, deadline: .now() + manager.configuration.timeoutIntervalForResource) { [weak self] in
            self?.shared.withLock { $0.timedOut = true }
            exchange.cancel()
        }
        // A suspend() or cancel() between resume() and here found no exchange: the driver applies it now.
        if driver.register(exchange, attempt: attempt) { await run(exchange) }
        manager.resourceDeadlines.remove(self)
    }

    /// Records the response head.
    func didReceive(response: HTTPURLResponse) {
        shared.withLock { $0.response = response }
    }

    /// Records request body progress and reports it to the observers and the delegate block.
    func didSend(_ progress: TransferProgress) {
        record(progress, .upload)
        manager.taskDidSendBodyData(self, progress)
    }

    /// Records response body progress and reports it to the observers.
    func didReceive(_ progress: TransferProgress) {
        record(progress, .download)
    }

    /// Completes the task: state, error, then (on the delegate queue) the metrics block, the
    /// did-complete block, the completion handler and the notification.
    func finish(response: HTTPURLResponse?, error: (any Error)?) async {
        var error = error
        let completed = driver.complete { [self] in
            shared.withLock { state in
                if state.timedOut, let urlError = error as? URLError, urlError.code == .cancelled {
                    error = URLError(.timedOut, userInfo: [
                        NSURLErrorFailingURLErrorKey: originalRequest?.url as Any,
                        NSLocalizedDescriptionKey: "The task exceeded the session's resource timeout.",
                    ])
                }
                if let response { state.response = response }
                state.error = error
            }
        }
        guard completed else { return }
        let metrics = driver.exchange.map {
            SessionTaskMetrics(exchange: $0.metrics, resumedAt: driver.startedAt ?? $0.metrics.fetchStart,
                               bytesSent: countOfBytesSent, bytesReceived: countOfBytesReceived)
        }
        let finalError = error
        await manager.taskDidComplete(self, metrics: metrics, error: finalError) { [self] in
            deliverCompletion(error: finalError)
        }
        driver.releaseWaiters()
    }
}

/// Which way bytes move.
public enum TransferDirection: Sendable, Equatable {
    /// The request body.
    case upload
    /// The response body.
    case download
}
