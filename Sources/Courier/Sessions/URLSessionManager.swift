import Dispatch
import Foundation
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Creates and manages session tasks, calling its delegate blocks as URLSession calls a delegate:
/// the counterpart of `AFURLSessionManager`.
///
/// Every task runs on Courier's ``Exchange`` over the session's transport. Delegate blocks run
/// one at a time, in URLSession's order, on ``delegateQueue`` (also reachable as
/// ``operationQueue``); completion handlers and notifications run on ``completionQueue`` (main by
/// default) inside ``completionGroup``.
///
/// ```swift
/// let manager = URLSessionManager(configuration: .default)
/// let task = manager.dataTask(with: URLRequest(url: url)) { response, object, error in ... }
/// task.resume()
/// ```
///
/// The class is open for ``HTTPSessionManager``; its mutable state is behind `Mutex`es, which is
/// what makes the `@unchecked Sendable` sound.
open class URLSessionManager: @unchecked Sendable {
    /// The configuration the manager was created with (AFNetworking's `session`).
    public let configuration: SessionConfiguration
    /// The transport every task uses: ``SessionConfiguration/transport``, or the session's own
    /// `EngineTransport`.
    public let transport: any HTTPTransport
    /// The resource timeouts of the running tasks, kept by one timer.
    let resourceDeadlines = ResourceDeadlines()
    /// The serial queue the delegate blocks run on.
    public let delegateQueue: DispatchQueue
    /// An operation queue on ``delegateQueue`` (one operation at a time), for callers that expect
    /// AFNetworking's `operationQueue`.
    public let operationQueue: OperationQueue

    private let ownsTransport: Bool
    private let nextIdentifier = Atomic<Int>(1)
    private let registry = Mutex(Registry())
    private let settings: Mutex<Settings>
    let blocks = Mutex(DelegateBlocks())
    private static let delegateQueueKey = DispatchSpecificKey<ObjectIdentifier>()

    private struct Registry {
        var tasks: [Int: SessionTask] = [:]
        var invalidated = false
        var invalidationDelivered = false
        /// Whether the invalidation block ran and the session's own transport is shut down.
        var invalidationFinished = false
        /// Callers of ``invalidated()`` waiting for that.
        var invalidationWaiters: [CheckedContinuation<Void, Never>] = []
    }

    private struct Settings {
        var responseSerializer: any URLResponseSerialization
        var completionContext = CompletionContext()
        var reachabilityManager: NetworkReachabilityManager
    }

    /// Creates a manager.
    /// - Parameter configuration: Timeouts, headers, connection limits, cookies, credentials,
    ///   security policy and transport. Default `.default`.
    public init(configuration: SessionConfiguration = .default) {
        self.configuration = configuration
        if let transport = configuration.transport {
            self.transport = transport
            ownsTransport = false
        } else {
            transport = DefaultTransport.make(configuration.ownTransportSettings)
            ownsTransport = true
        }
        delegateQueue = DispatchQueue(label: "Courier.URLSessionManager.delegate")
        operationQueue = OperationQueue()
        operationQueue.maxConcurrentOperationCount = 1
        operationQueue.underlyingQueue = delegateQueue
        settings = Mutex(Settings(responseSerializer: JSONResponseSerializer(), reachabilityManager: .shared))
        delegateQueue.setSpecific(key: Self.delegateQueueKey, value: ObjectIdentifier(delegateQueue))
    }

    // MARK: Settings

    /// AFNetworking's `session`: the configuration.
    public var session: SessionConfiguration { configuration }

    /// Turns data-task bodies into objects for completion handlers. Default
    /// `JSONResponseSerializer()`.
    public var responseSerializer: any URLResponseSerialization {
        get { settings.withLock { $0.responseSerializer } }
        set { settings.withLock { $0.responseSerializer = newValue } }
    }

    /// The policy the session's own transport enforces during TLS handshakes
    /// (``SessionConfiguration/securityPolicy``). Fixed when the manager is created, because
    /// connections are pooled per policy; with a transport of your own, that transport's policy
    /// applies instead.
    public var securityPolicy: SecurityPolicy { configuration.securityPolicy }

    /// Watches whether the network is reachable. Default `NetworkReachabilityManager.shared`
    /// (``HTTPSessionManager`` uses one for its base URL's host). Not started by the manager.
    public var reachabilityManager: NetworkReachabilityManager {
        get { settings.withLock { $0.reachabilityManager } }
        set { settings.withLock { $0.reachabilityManager = newValue } }
    }

    /// Where completion handlers and notifications run. Default `nil`: the main queue.
    public var completionQueue: DispatchQueue? {
        get { settings.withLock { $0.completionContext.queue } }
        set { settings.withLock { $0.completionContext.queue = newValue } }
    }

    /// The group completion handlers run inside. Default `nil`.
    public var completionGroup: DispatchGroup? {
        get { settings.withLock { $0.completionContext.group } }
        set { settings.withLock { $0.completionContext.group = newValue } }
    }

    var completionContext: CompletionContext { settings.withLock { $0.completionContext } }

    // MARK: Tasks

    /// Every task created and not yet completed.
    public var tasks: [SessionTask] {
        registry.withLock { $0.tasks.values.sorted { $0.taskIdentifier < $1.taskIdentifier } }
    }

    /// The data tasks among ``tasks`` (upload tasks excluded).
    public var dataTasks: [DataTask] {
        tasks.compactMap { $0 as? DataTask }.filter { !($0 is UploadTask) }
    }

    /// The upload tasks among ``tasks``.
    public var uploadTasks: [UploadTask] { tasks.compactMap { $0 as? UploadTask } }

    /// The download tasks among ``tasks``.
    public var downloadTasks: [DownloadTask] { tasks.compactMap { $0 as? DownloadTask } }

    /// The upload `Progress` of `task`.
    public func uploadProgress(for task: SessionTask) -> Progress { task.uploadProgress }

    /// The download `Progress` of `task`.
    public func downloadProgress(for task: SessionTask) -> Progress { task.downloadProgress }

    /// Ends the session. With `cancelPendingTasks`, every task is cancelled
    /// (`invalidateAndCancel`); without, running and suspended tasks go on to their end
    /// (`finishTasksAndInvalidate`). Once the last task completed, the session-did-become-invalid
    /// block runs with a `nil` error and the session's own transport is shut down. Tasks created
    /// afterwards complete with `URLError(.cancelled)` as soon as they are resumed.
    public func invalidateSessionCancelingTasks(_ cancelPendingTasks: Bool) {
        let pending = registry.withLock { registry in
            registry.invalidated = true
            return Array(registry.tasks.values)
        }
        if cancelPendingTasks {
            for task in pending { task.cancel() }
        }
        deliverInvalidationIfDone()
    }

    /// Whether ``invalidateSessionCancelingTasks(_:)`` was called.
    public var isInvalidated: Bool { registry.withLock { $0.invalidated } }

    func makeIdentifier() -> Int {
        nextIdentifier.wrappingAdd(1, ordering: .relaxed).oldValue
    }

    /// Keeps `task` until it completes; returns `false` when the session is invalidated.
    func register(_ task: SessionTask) -> Bool {
        registry.withLock { registry in
            guard !registry.invalidated else { return false }
            registry.tasks[task.taskIdentifier] = task
            return true
        }
    }

    private func unregister(_ task: SessionTask) {
        _ = registry.withLock { $0.tasks.removeValue(forKey: task.taskIdentifier) }
        deliverInvalidationIfDone()
    }

    private func deliverInvalidationIfDone() {
        let deliver = registry.withLock { registry -> Bool in
            guard registry.invalidated, registry.tasks.isEmpty, !registry.invalidationDelivered else { return false }
            registry.invalidationDelivered = true
            return true
        }
        guard deliver else { return }
        let block = blocks.withLock { $0.sessionDidBecomeInvalid }
        let transport = ownsTransport ? self.transport : nil
        delegateQueue.async { [self] in
            block?(self, nil)
            Task {
                try? await transport?.shutdown()
                let waiters = registry.withLock { registry in
                    registry.invalidationFinished = true
                    defer { registry.invalidationWaiters = [] }
                    return registry.invalidationWaiters
                }
                for waiter in waiters { waiter.resume() }
            }
        }
    }

    /// Returns once the session is invalidated, its last task has completed, the invalidation block has run and
    /// the session's own transport is shut down.
    func invalidated() async {
        await withCheckedContinuation { continuation in
            let finished = registry.withLock { registry in
                if !registry.invalidationFinished { registry.invalidationWaiters.append(continuation) }
                return registry.invalidationFinished
            }
            if finished { continuation.resume() }
        }
    }

    // MARK: Plumbing for tasks

    /// The exchange settings shared by every task: transport, cookies, credentials, the task's interceptors, and
    /// the hooks that route the exchange's events to the task and the manager's blocks (``SessionTaskHooks``).
    func exchangeConfiguration(for task: SessionTask) -> ExchangeConfiguration {
        var exchange = baseExchangeConfiguration()
        exchange.hooks = SessionTaskHooks(
            task: task,
            answersChallenges: blocks.withLock { $0.taskDidReceiveChallenge != nil || $0.sessionDidReceiveChallenge != nil }
        )
        exchange.interceptors += task.interceptors
        return exchange
    }

    /// The session's transport and request settings, without any block.
    func baseExchangeConfiguration() -> ExchangeConfiguration {
        var settings = configuration.requestSettings
        if !configuration.httpShouldSetCookies { settings.cookieJar = nil }
        // The body limit is the data tasks' alone (DataTask.configure): downloads and streamed bodies never hold
        // the body in memory.
        settings.maximumBodySize = nil
        return ExchangeConfiguration(transport: transport, settings: settings)
    }

    /// Runs `work` on the delegate queue and waits until it ran.
    func onDelegateQueue<Value: Sendable>(_ work: @escaping @Sendable () -> Value) async -> Value {
        await withCheckedContinuation { continuation in
            delegateQueue.async { continuation.resume(returning: work()) }
        }
    }

    /// Runs `work` on the delegate queue now (at once when already there).
    func onDelegateQueueNow<Value>(_ work: () -> Value) -> Value {
        if DispatchQueue.getSpecific(key: Self.delegateQueueKey) == ObjectIdentifier(delegateQueue) {
            return work()
        }
        return delegateQueue.sync(execute: work)
    }

    /// The end of a task: the metrics block, the did-complete block, then the task's completion
    /// handler (queued on the completion queue from the delegate queue, so it follows them).
    func taskDidComplete(_ task: SessionTask, metrics: SessionTaskMetrics?, error: (any Error)?,
                         deliverCompletion: @escaping @Sendable () -> Void) async {
        let (metricsBlock, completeBlock, queuesTransferEvents) = blocks.withLock {
            ($0.taskDidFinishCollectingMetrics, $0.taskDidComplete, $0.queuesTransferEvents)
        }
        if metricsBlock == nil, completeBlock == nil, !queuesTransferEvents, !task.hasProgressBlocks {
            // Nothing of this task waits on the delegate queue and nothing would run there now:
            // the completion goes straight to the completion queue (two thread hops fewer).
            deliverCompletion()
        } else {
            await onDelegateQueue { [self] in
                if let metrics { metricsBlock?(self, task, metrics) }
                completeBlock?(self, task, error)
                deliverCompletion()
            }
        }
        unregister(task)
    }

}

extension URLSessionManager {
    /// Drops a task that ended without a completion of its own.
    func forget(_ task: SessionTask) {
        _ = registry.withLock { $0.tasks.removeValue(forKey: task.taskIdentifier) }
        deliverInvalidationIfDone()
    }
}
