import Foundation
import Logging
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What a session or an operation says about every exchange it runs: your stages, where events go, interceptors,
/// content decoding, the HTTP cache, cookies, credentials and the in-memory body limit.
///
/// One value travels unchanged from a façade (``SessionConfiguration/requestSettings``,
/// ``URLConnectionOperation/requestSettings``, ``HTTPRequestOperationManager/requestSettings``) to
/// ``ExchangeConfiguration/settings``, where the pipeline's stages read it. A new per-request setting is declared
/// here and read by the stage that applies it; the façades' properties of the same meaning (`urlCache`, `cookieJar`,
/// `logger`…) read and write this value.
public struct RequestSettings: Sendable {
    /// The caller's own stages, outermost first: they see the request before the follow-ups, cookies and transport,
    /// and the final response after them (see ``ExchangePipeline``). Default none.
    public var stages: [any ExchangeStage] = []
    /// Where the exchange's events go (swift-log): its start and end at `debug` (method, URL without credentials or
    /// secret-looking query values, status, duration, bytes, redirects, retries), the pipeline's decisions and each
    /// request's header fields (`Authorization`, `Proxy-Authorization`, `Cookie` and `Set-Cookie` masked) at `trace`,
    /// each with a `courier.request.id`. Default: ``ExchangeConfiguration/silentLogger``, which logs nothing and costs
    /// one level check per exchange.
    public var logger: Logger = ExchangeConfiguration.silentLogger
    /// Where the exchange's spans and measurements go (see ``Telemetry``). Default ``Telemetry/bootstrapped``: the
    /// process's `InstrumentationSystem` and `MetricsSystem`, which cost nothing until bootstrapped.
    public var telemetry: Telemetry = .bootstrapped
    /// Request interceptors, in the order they run: adapters before every attempt, retriers after a failed one
    /// (see `InterceptionStage`; sessions and managers put their own before the request's). Default none.
    public var interceptors: [any RequestInterceptor] = []
    /// How `gzip` and `deflate` response bodies are decoded (see ``ContentDecoding``). Default `.default`: requests
    /// ask for them and bodies are decoded as they stream; `nil` sends no `Accept-Encoding` and decodes nothing.
    public var contentDecoding: ContentDecoding? = .default
    /// The HTTP cache requests are answered from and responses stored in, by each request's `cachePolicy` (see
    /// `CacheStage`). Default `nil`: no caching (sessions and operations set one).
    public var cache: HTTPCache?
    /// Cookies are read from and stored here when the request's `httpShouldHandleCookies` is
    /// `true`. Default `nil`: no cookie handling.
    public var cookieJar: CookieJar?
    /// The credential answering a Basic or Digest challenge from the origin (scheme, host, port) of the
    /// request as given. Default `nil`.
    ///
    /// It is never sent to another origin reached by a redirect: a challenge from there is answered only
    /// from ``credentialStore`` (an entry for that host, port and realm) or by the exchange's ``ExchangeHooks/answer(_:)``.
    public var credential: URLCredential?
    /// Consulted for a credential when the request has none, and updated with credentials that
    /// worked. Default `nil`.
    public var credentialStore: CredentialStore?
    /// The most response body bytes accepted (for a resumed download: with the kept bytes). A response
    /// whose `Content-Length` is larger fails at once, a longer body as soon as it passes the limit (the
    /// bytes past it are not delivered), with `URLError(.dataLengthExceedsMaximum)`. Default `nil`: no
    /// limit — a body held in memory can then grow as large as the server makes it.
    public var maximumBodySize: Int64?

    /// Header fields added to every request that does not set them itself (URLSession's `httpAdditionalHeaders`), by
    /// `DefaultHeadersStage` before the interceptors and the follow-ups: a redirect to another origin drops an
    /// `Authorization` set here as it drops the request's own. Default: none.
    public var additionalHeaders: [String: String] = [:]
    /// The `User-Agent` a request is sent with when neither it nor ``additionalHeaders`` has one (URLSession gives
    /// every request one too); `nil` sends none. Default: the one ``HTTPRequestSerializer`` sets,
    /// `Executable/Version (OS version)`, e.g. `courier/0 (Linux 6.8.0)`.
    public var userAgent: String? = DefaultRequestHeaders.processUserAgent

    /// Whether redirects are followed. Default `true`; `false` delivers the 3xx response (curl without `-L`).
    public var followsRedirects = true
    /// The most redirects followed before failing with `URLError(.httpTooManyRedirects)` (curl's `--max-redirs`).
    /// Default 16.
    public var maximumRedirects = 16

    /// The defaults listed on each property (no cache, no cookies, no credential store).
    public init() {}
}
