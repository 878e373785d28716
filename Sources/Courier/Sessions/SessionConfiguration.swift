import Foundation
import Logging
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The settings of a ``URLSessionManager``: Courier's counterpart of `URLSessionConfiguration`.
///
/// A manager copies its configuration when it is created; later changes to the value do not
/// affect it.
public struct SessionConfiguration: Sendable {
    /// Which HTTP versions a session's connections may use.
    public typealias HTTPVersionPolicy = Courier.HTTPVersionPolicy

    /// The idle timeout of each request: how long a request may go without a byte moving before it
    /// fails with `URLError(.timedOut)`, counted from the moment it is on a connection (waiting for one
    /// is bounded by ``connectionWaitTimeout``). Applied to requests that keep `URLRequest`'s default of
    /// 60 s. Default 60 s.
    public var timeoutIntervalForRequest: TimeInterval = 60
    /// The most time a task may take from `resume()` to its end, whatever moves; it then fails with
    /// `URLError(.timedOut)`. Default 7 days, as `URLSessionConfiguration`.
    public var timeoutIntervalForResource: TimeInterval = 7 * 24 * 60 * 60
    /// The most bytes a data or upload task holds in memory as its response body: a longer body fails the
    /// task with `URLError(.dataLengthExceedsMaximum)` (at once when its `Content-Length` says so). Download
    /// tasks and the streamed `bytes(for:)` API are not limited (they never hold the body); a data task that
    /// becomes a download keeps its limit. Default `nil`: no
    /// limit, as in URLSession — any server can then make a task hold as much as it sends. Courier's addition.
    public var maximumResponseDataSize: Int64? {
        get { requestSettings.maximumBodySize }
        set { requestSettings.maximumBodySize = newValue }
    }
    /// Stages of your own at the head of every task's pipeline, outermost first: they see each request before
    /// Courier's redirects, authentication, cookies and transport, and the final response after them (see
    /// ``ExchangePipeline``). They run in the task that awaits the request. Default: none. Courier's addition.
    public var stages: [any ExchangeStage] {
        get { requestSettings.stages }
        set { requestSettings.stages = newValue }
    }
    /// How `gzip` and `deflate` responses are asked for and decoded, as Foundation's loading system did for every
    /// AFNetworking request (see ``ContentDecoding``). Default `.default`; `nil` sends no `Accept-Encoding` and
    /// decodes nothing.
    public var contentDecoding: ContentDecoding? {
        get { requestSettings.contentDecoding }
        set { requestSettings.contentDecoding = newValue }
    }
    /// Headers added to every request that does not set them itself (``RequestSettings/additionalHeaders``; a
    /// redirect to another origin drops an `Authorization` set here). Default: empty.
    public var httpAdditionalHeaders: [String: String] {
        get { requestSettings.additionalHeaders }
        set { requestSettings.additionalHeaders = newValue }
    }
    /// The most HTTP/1.1 connections to one host. Default 8. Used when the session makes its own
    /// transport (``transport`` is `nil`).
    public var httpMaximumConnectionsPerHost: Int {
        get { transportSettings.maximumConnectionsPerHost }
        set { transportSettings.maximumConnectionsPerHost = newValue }
    }
    /// Which HTTP versions may be used. Default `.automatic` (HTTP/2 when the server offers it over
    /// TLS). Used when the session makes its own transport.
    public var httpVersion: HTTPVersionPolicy {
        get { transportSettings.httpVersion }
        set { transportSettings.httpVersion = newValue }
    }
    /// How long a TCP connection (and TLS handshake) may take. Default 10 s. Used when the session
    /// makes its own transport.
    public var connectTimeout: TimeInterval {
        get { transportSettings.connectTimeout }
        set { transportSettings.connectTimeout = newValue }
    }
    /// How long a request may wait for a connection (queued behind the host's busy connections, or
    /// while one is made) before it fails with `URLError(.timedOut)`; the request's idle timeout starts
    /// only once it is on a connection. Default 300 s; zero or less means no limit. Used when the
    /// session makes its own transport. Courier's addition.
    public var connectionWaitTimeout: TimeInterval {
        get { transportSettings.connectionWaitTimeout }
        set { transportSettings.connectionWaitTimeout = newValue }
    }
    /// Where cookies are kept. Default: ``CookieJar/processShared`` for `.default`, a jar of the
    /// session's own for `.ephemeral`. `nil` disables cookies.
    public var httpCookieStorage: CookieJar? {
        get { requestSettings.cookieJar }
        set { requestSettings.cookieJar = newValue }
    }
    /// Whether requests send and store cookies (when the request's own `httpShouldHandleCookies`
    /// agrees). Default `true`.
    public var httpShouldSetCookies = true
    /// Where credentials that worked are kept and looked up. Default: `CredentialStore.shared` for
    /// `.default`, a store of the session's own for `.ephemeral`. `nil` disables the store.
    public var urlCredentialStorage: CredentialStore? {
        get { requestSettings.credentialStore }
        set { requestSettings.credentialStore = newValue }
    }
    /// The HTTP cache the session's requests are answered from and store responses in, by each request's
    /// `cachePolicy` (see `CacheStage`). Default: ``HTTPCache/shared`` for `.default`, a 4 MiB memory cache of the
    /// session's own for `.ephemeral`; `nil` disables caching.
    public var urlCache: HTTPCache? {
        get { requestSettings.cache }
        set { requestSettings.cache = newValue }
    }
    /// Decides which server certificates are trusted, enforced by the session's own transport
    /// during the TLS handshake. Default `SecurityPolicy.default`. Ignored when ``transport`` is set
    /// (configure that transport's policy instead).
    public var securityPolicy: SecurityPolicy {
        get { transportSettings.securityPolicy }
        set { transportSettings.securityPolicy = newValue }
    }
    /// Policies for particular hosts (host names or IP addresses as they appear in URLs), overriding
    /// ``securityPolicy`` for those hosts. Default: empty. Ignored when ``transport`` is set.
    public var securityPolicies: [String: SecurityPolicy] {
        get { transportSettings.securityPolicies }
        set { transportSettings.securityPolicies = newValue }
    }
    /// The proxies the session's requests go through (see ``ProxyConfiguration``). Default `nil`: every request
    /// connects directly; `try .fromEnvironment()` uses the environment's `http_proxy`, `https_proxy`, `all_proxy`
    /// and `no_proxy` as curl does. Ignored when ``transport`` is set. Courier's addition (URLSession reads the
    /// system's settings; here they are asked for explicitly).
    public var proxy: ProxyConfiguration? {
        get { transportSettings.proxy }
        set { transportSettings.proxy = newValue }
    }
    /// The Unix domain socket every request of the session is sent over, whatever the URL's host (as curl's
    /// `--unix-socket`); the URL's host still goes into `Host`. Default `nil`. Ignored when ``transport`` is set.
    /// For one request at a time, use an `http+unix://` URL instead (see ``EngineTransport``).
    public var unixSocketPath: String? {
        get { transportSettings.unixSocketPath }
        set { transportSettings.unixSocketPath = newValue }
    }
    /// Where the session's events go (swift-log): each task's exchange (see ``ExchangeConfiguration/logger``) and
    /// the session's own transport's connection pool. Default ``ExchangeConfiguration/silentLogger`` (nothing).
    public var logger: Logger {
        get { requestSettings.logger }
        set { requestSettings.logger = newValue }
    }
    /// Where each task's spans and measurements go (see ``Telemetry``). Default ``Telemetry/bootstrapped``: the
    /// process's `InstrumentationSystem` and `MetricsSystem`.
    public var telemetry: Telemetry {
        get { requestSettings.telemetry }
        set { requestSettings.telemetry = newValue }
    }
    /// How long running tasks may go on when the session runs as a swift-service-lifecycle service and the group
    /// shuts down gracefully, in seconds; tasks still running then are cancelled (see ``URLSessionManager/run()``).
    /// Default 10.
    public var shutdownGracePeriod: TimeInterval = 10
    /// Request interceptors for every task, run before a task's own (``SessionTask/interceptors``): adapters before
    /// every attempt, retriers after a failed one (see ``RequestInterceptor``, ``RetryPolicy``). One ``RetryPolicy``
    /// instance here gives the session one retry budget. Default none: nothing is retried.
    public var interceptors: [any RequestInterceptor] {
        get { requestSettings.interceptors }
        set { requestSettings.interceptors = newValue }
    }
    /// The settings every task's exchange starts from (the properties above for cookies, credentials, cache,
    /// decoding, stages, interceptors, logging, telemetry and the body limit read and write them). The session
    /// applies ``httpShouldSetCookies`` to the jar, and the body limit to data and upload tasks only.
    public var requestSettings = RequestSettings()
    /// The settings of the transport the session makes for itself when ``transport`` is `nil` (the connection
    /// properties above read and write them; the pool logs to ``logger``). Default: ``TransportSettings/init()``.
    public var transportSettings = TransportSettings()
    /// The transport every task of the session uses. Default `nil`: the session makes one
    /// default transport (``EngineTransport``) of its own from the settings above and shuts it down when the
    /// session is invalidated. A transport given here is shared and never shut down by the session.
    public var transport: (any HTTPTransport)?

    /// A configuration with the defaults listed on each property, using the process-wide cookie
    /// jar and credential store.
    public init() {
        httpCookieStorage = CookieJar.processShared
        urlCredentialStorage = .shared
        urlCache = .shared
    }

    /// The default configuration: process-wide cookie jar and credential store.
    public static var `default`: SessionConfiguration { SessionConfiguration() }

    /// A configuration that shares nothing with other sessions: a cookie jar, a credential store and a memory-only
    /// HTTP cache of its own. Nothing is written to disk, so nothing outlives the session.
    public static var ephemeral: SessionConfiguration {
        var configuration = SessionConfiguration()
        configuration.httpCookieStorage = CookieJar()
        configuration.urlCredentialStorage = CredentialStore()
        configuration.urlCache = HTTPCache()
        return configuration
    }

    /// The settings of the transport a session makes for itself: ``transportSettings`` with the session's logger.
    var ownTransportSettings: TransportSettings {
        var settings = transportSettings
        settings.logger = logger
        if settings.metricsFactory == nil { settings.metricsFactory = telemetry.metricsFactory }
        return settings
    }

    /// `request` as the session sends it: the session's timeout applied (its additional headers are the
    /// pipeline's, `DefaultHeadersStage`).
    func prepared(_ request: URLRequest) -> URLRequest {
        // A change copies the request's Foundation storage (shared with the task's original request): change only
        // what differs.
        guard request.timeoutInterval == URLRequest.defaultTimeoutInterval,
              timeoutIntervalForRequest != request.timeoutInterval
        else { return request }
        var request = request
        request.timeoutInterval = timeoutIntervalForRequest
        return request
    }
}

extension URLRequest {
    /// The timeout a `URLRequest` gets when none is given.
    static let defaultTimeoutInterval: TimeInterval = 60
}

extension CookieJar {
    /// The jar shared by every session with the `.default` configuration and by every operation, like
    /// `HTTPCookieStorage.shared`.
    public static let processShared = CookieJar()
}
