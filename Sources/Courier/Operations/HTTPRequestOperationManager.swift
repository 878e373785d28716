import Foundation
import Logging
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Creates, configures and enqueues ``HTTPRequestOperation``s against a base URL: AFNetworking's
/// `AFHTTPRequestOperationManager`.
///
/// ```swift
/// let manager = HTTPRequestOperationManager(baseURL: URL(string: "https://api.example.com/v1/"))
/// manager.GET("users", parameters: ["page": 2], success: { _, json in print(json ?? "") }, failure: nil)
/// ```
///
/// Relative paths resolve against ``baseURL`` as `URL(string:relativeTo:)` does (a base URL
/// with a path gets a trailing slash, so "users" lands below it).
///
/// `@unchecked Sendable`: the serializers are reference types meant to be configured before use
/// (as in AFNetworking); every stored property of the manager itself is behind a `Mutex`.
open class HTTPRequestOperationManager: @unchecked Sendable {
    private struct Settings {
        var requestSerializer: HTTPRequestSerializer = HTTPRequestSerializer()
        var responseSerializer: any URLResponseSerialization = JSONResponseSerializer()
        var securityPolicy: SecurityPolicy = OperationTransport.defaultSecurityPolicy
        var proxy: ProxyConfiguration?
        var request = RequestSettings.operationDefaults
        var reachabilityManager: NetworkReachabilityManager?
        var completionQueue: DispatchQueue?
        var completionGroup: DispatchGroup?
        var transport: (any HTTPTransport)?
    }

    private let settings: Mutex<Settings>

    /// The URL relative paths resolve against. Default `nil` (absolute URLs only).
    public let baseURL: URL?

    /// The queue the manager's operations run on. Default: a new `OperationQueue` with the
    /// system's concurrency limit.
    public let operationQueue = OperationQueue()

    /// Creates a manager. With a `baseURL`, the reachability manager watches its host and is already
    /// monitoring (changes are posted as ``Foundation/NSNotification/Name/courierReachabilityDidChange``);
    /// without one it is `NetworkReachabilityManager.shared`, not started.
    public init(baseURL: URL? = nil) {
        let base = BaseURL.normalized(baseURL)
        self.baseURL = base
        var initial = Settings()
        initial.reachabilityManager = .watching(baseURL: base)
        settings = Mutex(initial)
        operationQueue.name = "Courier.HTTPRequestOperationManager"
    }

    /// Builds requests. Default: an ``HTTPRequestSerializer``.
    public var requestSerializer: HTTPRequestSerializer {
        get { settings.withLock { $0.requestSerializer } }
        set { settings.withLock { $0.requestSerializer = newValue } }
    }

    /// Given to every operation the manager creates. Default: a ``JSONResponseSerializer``.
    public var responseSerializer: any URLResponseSerialization {
        get { settings.withLock { $0.responseSerializer } }
        set { settings.withLock { $0.responseSerializer = newValue } }
    }

    /// Given to every operation. Default the one `SecurityPolicy.default` instance shared by every operation.
    public var securityPolicy: SecurityPolicy {
        get { settings.withLock { $0.securityPolicy } }
        set { settings.withLock { $0.securityPolicy = newValue } }
    }

    /// Given to every operation: the proxies its request goes through (see ``ProxyConfiguration``). Default `nil`
    /// (directly); `try .fromEnvironment()` for the environment's `http_proxy` and the like. Courier's addition.
    public var proxy: ProxyConfiguration? {
        get { settings.withLock { $0.proxy } }
        set { settings.withLock { $0.proxy = newValue } }
    }

    /// Given to every operation: the settings its exchanges start from; ``interceptors``, ``logger``, ``telemetry``,
    /// ``credential``, ``shouldUseCredentialStorage`` and ``stages`` read and write them. Default: an operation's
    /// (see ``URLConnectionOperation/requestSettings``). Courier's addition.
    public var requestSettings: RequestSettings {
        get { settings.withLock { $0.request } }
        set { settings.withLock { $0.request = newValue } }
    }

    /// Given to every operation: request interceptors run before the operation's own (see ``RequestInterceptor``).
    /// One ``RetryPolicy`` instance here gives the manager's operations one retry budget. Default none.
    /// Courier's addition.
    public var interceptors: [any RequestInterceptor] {
        get { settings.withLock { $0.request.interceptors } }
        set { settings.withLock { $0.request.interceptors = newValue } }
    }

    /// Given to every operation: where its request events go (see ``ExchangeConfiguration/logger``). Default
    /// ``ExchangeConfiguration/silentLogger``. Courier's addition.
    public var logger: Logger {
        get { settings.withLock { $0.request.logger } }
        set { settings.withLock { $0.request.logger = newValue } }
    }

    /// Given to every operation: where its spans and measurements go (see ``Telemetry``). Default
    /// ``Telemetry/bootstrapped``. Courier's addition.
    public var telemetry: Telemetry {
        get { settings.withLock { $0.request.telemetry } }
        set { settings.withLock { $0.request.telemetry = newValue } }
    }

    /// Given to every operation for authentication challenges from its request's own origin (see
    /// ``URLConnectionOperation/credential``). Default `nil`.
    public var credential: URLCredential? {
        get { settings.withLock { $0.request.credential } }
        set { settings.withLock { $0.request.credential = newValue } }
    }

    /// Given to every operation. Default `true`.
    public var shouldUseCredentialStorage: Bool {
        get { settings.withLock { $0.request.credentialStore != nil } }
        set { settings.withLock { $0.request.credentialStore = newValue ? .shared : nil } }
    }

    /// Watches the reachability of ``baseURL``'s host (not started: call `startMonitoring()`).
    public var reachabilityManager: NetworkReachabilityManager? {
        get { settings.withLock { $0.reachabilityManager } }
        set { settings.withLock { $0.reachabilityManager = newValue } }
    }

    /// Given to every operation: where completion blocks run. Default `nil` (main queue).
    public var completionQueue: DispatchQueue? {
        get { settings.withLock { $0.completionQueue } }
        set { settings.withLock { $0.completionQueue = newValue } }
    }

    /// Given to every operation: the group completion blocks run inside. Default `nil`.
    public var completionGroup: DispatchGroup? {
        get { settings.withLock { $0.completionGroup } }
        set { settings.withLock { $0.completionGroup = newValue } }
    }

    /// Given to every operation instead of the shared transport for ``securityPolicy``. Default
    /// `nil`. Courier's addition.
    public var transport: (any HTTPTransport)? {
        get { settings.withLock { $0.transport } }
        set { settings.withLock { $0.transport = newValue } }
    }

    /// Given to every operation: stages of your own at the head of its pipeline (see
    /// ``URLConnectionOperation/stages``). Default: none. Courier's addition.
    public var stages: [any ExchangeStage] {
        get { settings.withLock { $0.request.stages } }
        set { settings.withLock { $0.request.stages = newValue } }
    }

    /// An operation for `request` configured with the manager's serializer, policy, credentials
    /// and completion queue and group, with `success` and `failure` as its completion. Not
    /// enqueued.
    open func httpRequestOperation(
        with request: URLRequest,
        success: (@Sendable (_ operation: HTTPRequestOperation, _ responseObject: Any?) -> Void)?,
        failure: (@Sendable (_ operation: HTTPRequestOperation, _ error: any Error) -> Void)?
    ) -> HTTPRequestOperation {
        configured(HTTPRequestOperation(request: request), success: success, failure: failure)
    }

    /// An operation restored from `archive` (see ``OperationArchive``) and configured like
    /// ``httpRequestOperation(with:success:failure:)``: an interrupted download to a file continues after the bytes
    /// already in it (with `Range` and `If-Range`) when started, if the archived response had a strong validator
    /// (`ETag` or `Last-Modified`); without one the file is written again from its first byte.
    /// - Throws: ``OperationArchiveError`` when the archive is of a format this Courier does not read or holds an
    ///   impossible value (see its cases).
    open func httpRequestOperation(
        resuming archive: OperationArchive,
        success: (@Sendable (_ operation: HTTPRequestOperation, _ responseObject: Any?) -> Void)?,
        failure: (@Sendable (_ operation: HTTPRequestOperation, _ error: any Error) -> Void)?
    ) throws -> HTTPRequestOperation {
        let operation = HTTPRequestOperation(request: archive.request.makeRequest())
        try operation.restore(from: archive)
        return configured(operation, success: success, failure: failure)
    }

    /// `operation` with the manager's serializer, policies, transport, stages and queues, and the completion blocks.
    private func configured(
        _ operation: HTTPRequestOperation,
        success: (@Sendable (_ operation: HTTPRequestOperation, _ responseObject: Any?) -> Void)?,
        failure: (@Sendable (_ operation: HTTPRequestOperation, _ error: any Error) -> Void)?
    ) -> HTTPRequestOperation {
        let current = settings.withLock { $0 }
        operation.responseSerializer = current.responseSerializer
        operation.securityPolicy = current.securityPolicy
        operation.proxy = current.proxy
        operation.requestSettings = current.request
        operation.completionQueue = current.completionQueue
        operation.completionGroup = current.completionGroup
        operation.transport = current.transport
        operation.setCompletionBlockWithSuccess(success, failure: failure)
        return operation
    }

    /// Builds a request for `method` and `urlString` (relative to ``baseURL``) with `parameters`,
    /// and enqueues its operation. When the request cannot be built, `failure` gets the
    /// serialization error (with no operation) on the completion queue and the result is `nil`.
    @discardableResult
    open func enqueue(
        method: String,
        urlString: String,
        parameters: Any?,
        success: (@Sendable (_ operation: HTTPRequestOperation, _ responseObject: Any?) -> Void)?,
        failure: (@Sendable (_ operation: HTTPRequestOperation?, _ error: any Error) -> Void)?
    ) -> HTTPRequestOperation? {
        enqueue(urlString: urlString, success: success, failure: failure) { serializer, url in
            try serializer.request(method: method, urlString: url, parameters: parameters)
        }
    }

    private func enqueue(
        urlString: String,
        success: (@Sendable (HTTPRequestOperation, Any?) -> Void)?,
        failure: (@Sendable (HTTPRequestOperation?, any Error) -> Void)?,
        build: (HTTPRequestSerializer, String) throws -> URLRequest
    ) -> HTTPRequestOperation? {
        let request: URLRequest
        do {
            request = try build(requestSerializer, try BaseURL.resolve(urlString, against: baseURL))
        } catch {
            CompletionContext(queue: completionQueue, group: completionGroup).deliver { failure?(nil, error) }
            return nil
        }
        var operationFailure: (@Sendable (HTTPRequestOperation, any Error) -> Void)?
        if let failure {
            operationFailure = { operation, error in failure(operation, error) }
        }
        let operation = httpRequestOperation(with: request, success: success, failure: operationFailure)
        operationQueue.addOperation(operation)
        return operation
    }

    /// Enqueues a GET; parameters go in the query string.
    @discardableResult
    public func GET(_ urlString: String, parameters: Any?, success: (@Sendable (HTTPRequestOperation, Any?) -> Void)?, failure: (@Sendable (HTTPRequestOperation?, any Error) -> Void)?) -> HTTPRequestOperation? {
        enqueue(method: "GET", urlString: urlString, parameters: parameters, success: success, failure: failure)
    }

    /// Enqueues a HEAD; `success` gets only the operation (there is no body).
    @discardableResult
    public func HEAD(_ urlString: String, parameters: Any?, success: (@Sendable (HTTPRequestOperation) -> Void)?, failure: (@Sendable (HTTPRequestOperation?, any Error) -> Void)?) -> HTTPRequestOperation? {
        var headSuccess: (@Sendable (HTTPRequestOperation, Any?) -> Void)?
        if let success {
            headSuccess = { operation, _ in success(operation) }
        }
        return enqueue(method: "HEAD", urlString: urlString, parameters: parameters, success: headSuccess, failure: failure)
    }

    /// Enqueues a POST; parameters go in the body as the request serializer encodes them.
    @discardableResult
    public func POST(_ urlString: String, parameters: Any?, success: (@Sendable (HTTPRequestOperation, Any?) -> Void)?, failure: (@Sendable (HTTPRequestOperation?, any Error) -> Void)?) -> HTTPRequestOperation? {
        enqueue(method: "POST", urlString: urlString, parameters: parameters, success: success, failure: failure)
    }

    /// Enqueues a multipart/form-data POST: the parameters become form fields, then `block`
    /// appends parts. The body streams from the parts.
    @discardableResult
    public func POST(
        _ urlString: String,
        parameters: Any?,
        constructingBodyWith block: ((any MultipartFormData) throws -> Void)?,
        success: (@Sendable (HTTPRequestOperation, Any?) -> Void)?,
        failure: (@Sendable (HTTPRequestOperation?, any Error) -> Void)?
    ) -> HTTPRequestOperation? {
        enqueue(urlString: urlString, success: success, failure: failure) { serializer, url in
            try serializer.multipartFormRequest(method: "POST", urlString: url, parameters: parameters, constructingBodyWith: block)
        }
    }

    /// Enqueues a PUT.
    @discardableResult
    public func PUT(_ urlString: String, parameters: Any?, success: (@Sendable (HTTPRequestOperation, Any?) -> Void)?, failure: (@Sendable (HTTPRequestOperation?, any Error) -> Void)?) -> HTTPRequestOperation? {
        enqueue(method: "PUT", urlString: urlString, parameters: parameters, success: success, failure: failure)
    }

    /// Enqueues a PATCH.
    @discardableResult
    public func PATCH(_ urlString: String, parameters: Any?, success: (@Sendable (HTTPRequestOperation, Any?) -> Void)?, failure: (@Sendable (HTTPRequestOperation?, any Error) -> Void)?) -> HTTPRequestOperation? {
        enqueue(method: "PATCH", urlString: urlString, parameters: parameters, success: success, failure: failure)
    }

    /// Enqueues a DELETE; parameters go in the query string.
    @discardableResult
    public func DELETE(_ urlString: String, parameters: Any?, success: (@Sendable (HTTPRequestOperation, Any?) -> Void)?, failure: (@Sendable (HTTPRequestOperation?, any Error) -> Void)?) -> HTTPRequestOperation? {
        enqueue(method: "DELETE", urlString: urlString, parameters: parameters, success: success, failure: failure)
    }

    /// The async twin of the verbs: enqueues `method` and returns the serialized response object,
    /// or throws the serialization or transfer error. Cancelling the calling task cancels the
    /// operation.
    public func perform(_ method: String, _ urlString: String, parameters: Any? = nil) async throws -> Any? {
        let request = try requestSerializer.request(
            method: method,
            urlString: try BaseURL.resolve(urlString, against: baseURL),
            parameters: parameters
        )
        let operation = httpRequestOperation(with: request, success: nil, failure: nil)
        operationQueue.addOperation(operation)
        return try await operation.responseObject()
    }
}
