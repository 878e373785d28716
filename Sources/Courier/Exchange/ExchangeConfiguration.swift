import Foundation
import Logging
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Progress of one direction of a transfer, in AFNetworking's shape.
public struct TransferProgress: Sendable, Equatable {
    /// Bytes moved by this step.
    public var bytesThisTime: Int64
    /// Bytes moved so far.
    public var totalBytes: Int64
    /// The total expected, or -1 when unknown (no `Content-Length`).
    public var totalBytesExpected: Int64

    /// Creates a progress value.
    public init(bytesThisTime: Int64, totalBytes: Int64, totalBytesExpected: Int64) {
        self.bytesThisTime = bytesThisTime
        self.totalBytes = totalBytes
        self.totalBytesExpected = totalBytesExpected
    }
}

/// Everything one ``Exchange`` needs besides its request: the transport, where the body goes, the settings, and the
/// ``ExchangeHooks`` it tells and asks as it runs.
public struct ExchangeConfiguration: Sendable {
    /// The transport that sends each hop.
    public var transport: any HTTPTransport
    /// A logger that discards everything: the default of every `logger` setting.
    public static let silentLogger = Logger(label: "courier", factory: { _ in SwiftLogNoOpLogHandler() })
    /// Where the final response's body goes. Default `.memory`.
    public var sink: ResponseSink = .memory
    /// The request body, when it is not in the `URLRequest` (for example an async sequence).
    /// Default `nil`: the request's `httpBody` or `httpBodyStream`.
    public var body: HTTPRequestBody?
    /// ``RequestSettings/followsRedirects`` of ``settings``.
    public var followsRedirects: Bool {
        get { settings.followsRedirects }
        set { settings.followsRedirects = newValue }
    }
    /// ``RequestSettings/maximumRedirects`` of ``settings``.
    public var maximumRedirects: Int {
        get { settings.maximumRedirects }
        set { settings.maximumRedirects = newValue }
    }
    /// What the exchange tells and asks as it runs (redirects, challenges, the cache, progress, the response, the body,
    /// retries, its end). Default: none (every method's default).
    public var hooks: any ExchangeHooks = NoExchangeHooks()
    /// ``hooks`` as closures: reads the ``ExchangeHandlers`` set there (empty ones when ``hooks`` is another type), and
    /// setting it replaces ``hooks``.
    public var handlers: ExchangeHandlers {
        get { hooks as? ExchangeHandlers ?? ExchangeHandlers() }
        set { hooks = newValue }
    }
    /// The most credentials sent for one exchange before its 401 is delivered. Default 3.
    public var maximumAuthenticationAttempts = 3
    /// Continue a partial download: the request carries `Range` and `If-Range`, and a 206 that proves it
    /// continues the kept bytes (see ``DownloadResumption``) continues after them (a file sink keeps them).
    /// Any other success — a 200, a 206 that does not fit (then the whole resource is asked for again), or
    /// a resumption without a validator (then the request goes out without a range) — starts over: a file
    /// sink is truncated before the first byte. An unrelated status leaves the kept bytes untouched (its
    /// body goes to ``ExchangeResult/data``). Default `nil`.
    public var resumption: DownloadResumption?
    /// When the whole exchange must have ended (a session's ``SessionConfiguration/timeoutIntervalForResource``, the
    /// command line's `--max-time`). A retry whose delay would end after it is not waited for: the exchange fails at
    /// once with ``RetryDeadlineError``. Whoever sets it also stops the exchange when it passes (``Exchange/cancel()``,
    /// which also ends a retry's wait). Default `nil`: none.
    public var deadline: ContinuousClock.Instant?

    /// The settings a session or an operation gives every exchange (stages, logging and telemetry, interceptors,
    /// decoding, cache, cookies, credentials, the body limit); the properties of the same names read and write them.
    /// Default: ``RequestSettings/init()``.
    public var settings: RequestSettings
    /// ``RequestSettings/stages`` of ``settings``.
    public var stages: [any ExchangeStage] {
        get { settings.stages }
        set { settings.stages = newValue }
    }
    /// ``RequestSettings/logger`` of ``settings``.
    public var logger: Logger {
        get { settings.logger }
        set { settings.logger = newValue }
    }
    /// ``RequestSettings/telemetry`` of ``settings``.
    public var telemetry: Telemetry {
        get { settings.telemetry }
        set { settings.telemetry = newValue }
    }
    /// ``RequestSettings/interceptors`` of ``settings``.
    public var interceptors: [any RequestInterceptor] {
        get { settings.interceptors }
        set { settings.interceptors = newValue }
    }
    /// ``RequestSettings/contentDecoding`` of ``settings``.
    public var contentDecoding: ContentDecoding? {
        get { settings.contentDecoding }
        set { settings.contentDecoding = newValue }
    }
    /// ``RequestSettings/cache`` of ``settings``.
    public var cache: HTTPCache? {
        get { settings.cache }
        set { settings.cache = newValue }
    }
    /// ``RequestSettings/cookieJar`` of ``settings``.
    public var cookieJar: CookieJar? {
        get { settings.cookieJar }
        set { settings.cookieJar = newValue }
    }
    /// ``RequestSettings/credential`` of ``settings``.
    public var credential: URLCredential? {
        get { settings.credential }
        set { settings.credential = newValue }
    }
    /// ``RequestSettings/credentialStore`` of ``settings``.
    public var credentialStore: CredentialStore? {
        get { settings.credentialStore }
        set { settings.credentialStore = newValue }
    }
    /// ``RequestSettings/maximumBodySize`` of ``settings``.
    public var maximumBodySize: Int64? {
        get { settings.maximumBodySize }
        set { settings.maximumBodySize = newValue }
    }

    /// Creates a configuration with default hooks.
    /// - Parameters:
    ///   - transport: The transport that sends each hop.
    ///   - settings: The session's or operation's settings. Default: ``RequestSettings/init()``.
    public init(transport: any HTTPTransport, settings: RequestSettings = RequestSettings()) {
        self.transport = transport
        self.settings = settings
    }
}

/// The hooks of an exchange nobody asked to be told about: every method's default.
struct NoExchangeHooks: ExchangeHooks {}
