import Foundation
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Builds requests with default headers and query-string or form-encoded parameters.
///
/// The counterpart of `AFHTTPRequestSerializer`. Parameters of methods in
/// ``httpMethodsEncodingParametersInURI`` (GET, HEAD, DELETE) are appended to the URL as a query
/// string; for other methods they become an `application/x-www-form-urlencoded` body (unless the
/// request already has a `Content-Type`). Parameters may be dictionaries (`[String: Any]`,
/// `NSDictionary`) or `Encodable` values with keyed containers.
///
/// Thread safety: one serializer may be shared by many threads. Every stored mutable property
/// lives in `settings`, behind a `Mutex`; that is what makes the `@unchecked Sendable` sound.
/// Subclasses must keep the same rule for the state they add.
open class HTTPRequestSerializer: URLRequestSerialization, @unchecked Sendable {
    /// All mutable state, behind a lock (see the type's documentation).
    private let settings: Mutex<RequestSerializerSettings>

    /// Creates a serializer with the defaults listed on each property, and the default headers
    /// `Accept-Language` (from the process's preferred languages) and `User-Agent`
    /// (`Executable/Version (OS version)`).
    public init() {
        var initial = RequestSerializerSettings()
        initial.headers["Accept-Language"] = DefaultRequestHeaders.acceptLanguage(for: DefaultRequestHeaders.processLanguages)
        initial.headers["User-Agent"] = DefaultRequestHeaders.processUserAgent
        settings = Mutex(initial)
    }

    // MARK: Properties

    /// The encoding parameters are written in. Default: UTF-8.
    public var stringEncoding: String.Encoding {
        get { settings.withLock { $0.stringEncoding } }
        set { settings.withLock { $0.stringEncoding = newValue } }
    }

    /// Whether created requests may use a cellular radio. Default: `true`.
    ///
    /// Stored on the request as Foundation does; the NIO engine (EngineTransport) has no
    /// notion of interface kinds and does not act on it.
    public var allowsCellularAccess: Bool {
        get { settings.withLock { $0.allowsCellularAccess } }
        set { settings.withLock { $0.allowsCellularAccess = newValue } }
    }

    /// The cache policy of created requests. Default: `.useProtocolCachePolicy`.
    public var cachePolicy: URLRequest.CachePolicy {
        get { settings.withLock { $0.cachePolicy } }
        set { settings.withLock { $0.cachePolicy = newValue } }
    }

    /// Whether created requests use the default cookie handling. Default: `true`.
    public var httpShouldHandleCookies: Bool {
        get { settings.withLock { $0.httpShouldHandleCookies } }
        set { settings.withLock { $0.httpShouldHandleCookies = newValue } }
    }

    /// Whether created requests may be pipelined. Default: `false`.
    ///
    /// Stored on the request; the NIO engine (AsyncHTTPClient) never pipelines HTTP/1.1
    /// (HTTP/2 multiplexes instead), so it has no effect there.
    public var httpShouldUsePipelining: Bool {
        get { settings.withLock { $0.httpShouldUsePipelining } }
        set { settings.withLock { $0.httpShouldUsePipelining = newValue } }
    }

    /// The network service type of created requests. Default: `.default`.
    ///
    /// Stored on the request as Foundation does; the NIO engine does not act on it.
    public var networkServiceType: URLRequest.NetworkServiceType {
        get { settings.withLock { $0.networkServiceType } }
        set { settings.withLock { $0.networkServiceType = newValue } }
    }

    /// The timeout of created requests, in seconds. Default: 60.
    public var timeoutInterval: TimeInterval {
        get { settings.withLock { $0.timeoutInterval } }
        set { settings.withLock { $0.timeoutInterval = newValue } }
    }

    /// The default headers applied to serialized requests that do not already set them.
    /// Default: `Accept-Language` and `User-Agent`.
    public var httpRequestHeaders: [String: String] {
        settings.withLock { $0.headers.dictionary }
    }

    /// The methods whose parameters go in the URL's query string. Default: GET, HEAD, DELETE.
    public var httpMethodsEncodingParametersInURI: Set<String> {
        get { settings.withLock { $0.httpMethodsEncodingParametersInURI } }
        set { settings.withLock { $0.httpMethodsEncodingParametersInURI = newValue } }
    }

    // MARK: Headers

    /// Sets the default value of a header (names are case-insensitive); `nil` removes it.
    public func setValue(_ value: String?, forHTTPHeaderField field: String) {
        settings.withLock { $0.headers[field] = value }
    }

    /// The default value of a header, matched case-insensitively.
    public func value(forHTTPHeaderField field: String) -> String? {
        settings.withLock { $0.headers[field] }
    }

    /// Sets `Authorization: Basic <base64(username:password)>`, with the credentials in UTF-8.
    /// Overwrites any previous value.
    public func setAuthorizationHeaderField(username: String, password: String) {
        let credentials = Data("\(username):\(password)".utf8).base64EncodedString()
        setValue("Basic \(credentials)", forHTTPHeaderField: "Authorization")
    }

    /// Sets `Authorization: Token token="<token>"`, the form AFNetworking 2.0 used. For bearer
    /// tokens, call `setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")`.
    public func setAuthorizationHeaderField(token: String) {
        setValue("Token token=\"\(token)\"", forHTTPHeaderField: "Authorization")
    }

    /// Removes the default `Authorization` header.
    public func clearAuthorizationHeader() {
        setValue(nil, forHTTPHeaderField: "Authorization")
    }

    // MARK: Query strings

    /// Uses one of the built-in query string styles (this also removes a custom block).
    /// Default: `.default`.
    public func setQueryStringSerialization(style: HTTPRequestQueryStringSerializationStyle) {
        settings.withLock { $0.queryStringSerialization = .style(style) }
    }

    /// Uses `block` to write parameters as a query string (and as the form body of non-URI
    /// methods). The block receives the request being built and the parameters as given.
    public func setQueryStringSerialization(block: @escaping QueryStringSerializationBlock) {
        settings.withLock { $0.queryStringSerialization = .block(block) }
    }

    // MARK: Building requests

    /// Creates a request for `method` and `urlString`, configured with this serializer's
    /// settings, and with `parameters` serialized by ``request(bySerializing:withParameters:)``.
    ///
    /// - Throws: ``RequestSerializationError/invalidURL(_:)`` for an unparsable URL, or any error
    ///   of the parameter serialization.
    open func request(method: String, urlString: String, parameters: Any?) throws -> URLRequest {
        var request = try makeRequest(method: method, urlString: urlString)
        // The default headers go on here, while this is the request's only reference: swift-corelibs-foundation copies
        // a shared request's whole storage on the first change (and normalizes its method again, about 5 µs of a small
        // GET). ``request(bySerializing:withParameters:)`` then finds them present and changes nothing.
        settings.withLock { $0.applyHeaders(to: &request) }
        return try self.request(bySerializing: request, withParameters: parameters)
    }

    /// Returns `request` with the default headers it lacks and `parameters` as a query string
    /// (methods in ``httpMethodsEncodingParametersInURI``) or as a form body.
    ///
    /// Other methods always get a form body, as AFNetworking's serializer gives them: with `nil`
    /// parameters it is empty (`Data()`, a valid `application/x-www-form-urlencoded` payload), and
    /// `Content-Type: application/x-www-form-urlencoded` is set unless the request has one.
    ///
    /// - Throws: ``RequestHeaderError`` when a default header set with ``setValue(_:forHTTPHeaderField:)`` has a name
    ///   that is not a token or a value with a control character (`URLRequest` would drop such a value without a
    ///   word on Linux, and the request would go out without it); any error of the parameter serialization.
    open func request(bySerializing request: URLRequest, withParameters parameters: Any?) throws -> URLRequest {
        if let refusal = settings.withLock({ $0.headers.refusal }) { throw refusal }
        var request = applyingDefaultHeaders(to: request)
        let inURI = encodesParametersInURI(request)
        if parameters == nil, inURI { return request }
        let (serialization, encoding) = queryStringSerialization()
        let query = try parameters.map { try serialization.queryString(for: request, parameters: $0, encoding: encoding) } ?? ""
        if inURI {
            if !query.isEmpty { request.url = try Self.url(request.url, appendingQuery: query) }
        } else {
            if request.value(forHTTPHeaderField: "Content-Type") == nil {
                request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
            }
            guard let body = query.data(using: encoding) else {
                throw RequestSerializationError.unrepresentableString(query, encoding: encoding)
            }
            request.httpBody = body
        }
        return request
    }

    /// A request with `method`, the parsed URL and this serializer's request-level settings
    /// (cache policy, timeout, cookies, ...), without headers or parameters.
    public final func makeRequest(method: String, urlString: String) throws -> URLRequest {
        guard let url = URL(string: urlString) else { throw RequestSerializationError.invalidURL(urlString) }
        var request = URLRequest(url: url)
        // GET is a new request's method already; setting it again costs swift-corelibs-foundation a copy of the
        // request and a normalization (about 1 % of a small GET's CPU).
        if method != "GET" { request.httpMethod = method }
        settings.withLock { $0.configure(&request) }
        return request
    }

    /// `request` with each default header it does not already have.
    public final func applyingDefaultHeaders(to request: URLRequest) -> URLRequest {
        var request = request
        settings.withLock { $0.applyHeaders(to: &request) }
        return request
    }

    /// Whether parameters of `request`'s method go in its URL.
    public final func encodesParametersInURI(_ request: URLRequest) -> Bool {
        settings.withLock { $0.encodesParametersInURI(request) }
    }

    /// The current query string rule and ``stringEncoding``, read together.
    final func queryStringSerialization() -> (QueryStringSerialization, String.Encoding) {
        settings.withLock { ($0.queryStringSerialization, $0.stringEncoding) }
    }

    /// `url` with `query` appended to its query (after `&` when it already has one).
    static func url(_ url: URL?, appendingQuery query: String) throws -> URL? {
        guard let url else { return nil }
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
            throw RequestSerializationError.invalidURL(url.absoluteString)
        }
        if let existing = components.percentEncodedQuery {
            components.percentEncodedQuery = existing + "&" + query
        } else {
            components.percentEncodedQuery = query
        }
        guard let result = components.url else { throw RequestSerializationError.invalidURL(url.absoluteString) }
        return result
    }
}
