import Foundation
import Logging
import Tracing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The blocks an operation passes to each exchange, and copies.
struct OperationBlocks: Sendable {
    var uploadProgress: (@Sendable (_ bytes: Int, _ totalBytes: Int64, _ totalBytesExpected: Int64) -> Void)?
    var downloadProgress: (@Sendable (_ bytes: Int, _ totalBytes: Int64, _ totalBytesExpected: Int64) -> Void)?
    var authenticationChallenge: (@Sendable (AuthenticationChallenge) async -> AuthenticationDisposition)?
    var redirectResponse: (@Sendable (_ request: URLRequest, _ redirectResponse: URLResponse?) -> URLRequest?)?
    var cacheResponse: (@Sendable (CachedURLResponse) -> CachedURLResponse?)?
    var willRetry: (@Sendable (RetryEvent) -> Void)?
}

/// Everything mutable about a ``URLConnectionOperation``, guarded by one `Mutex`.
struct OperationStorage: Sendable {
    var machine = OperationStateMachine()
    var request: URLRequest
    var response: HTTPURLResponse?
    var error: (any Error)?
    var responseData: Data?
    /// The memory body kept between transfers (after a pause, or restored from an archive), and the whole body
    /// once a transfer ends; while a transfer runs, its exchange holds the bytes.
    var buffer = Data()
    var totalBytesRead: Int64 = 0
    var output: OutputStreamTarget?
    var outputFileURL: URL?
    var userInfo: [String: any Sendable] = [:]
    /// The settings every exchange of the operation starts from.
    var settings = RequestSettings.operationDefaults
    var securityPolicy: SecurityPolicy = OperationTransport.defaultSecurityPolicy
    var proxy: ProxyConfiguration?
    var transport: (any HTTPTransport)?
    var completionQueue: DispatchQueue?
    var completionGroup: DispatchGroup?
    var completionBlock: (@Sendable () -> Void)?
    var blocks = OperationBlocks()
    /// Whether the output holds bytes of an earlier transfer (after a pause, or restored from an
    /// archive) that the next transfer continues after.
    var keepsPartialOutput = false
    /// The latest attempt whose stopped exchange's bytes were taken into ``buffer``.
    var settledAttempt = 0
    var lease: ShutdownLease?
    var cachedResponse: CachedURLResponse?
    /// The trace context current where the operation was made: its spans' parent when it is started where none
    /// is current (an operation queue's thread).
    let serviceContext: ServiceContext?

    init(request: URLRequest) {
        self.request = request
        serviceContext = ServiceContext.current
    }
}

extension RequestSettings {
    /// What an operation starts with: the process-wide cookie jar, HTTP cache and credential store, as
    /// `NSURLConnection` used the shared `NSHTTPCookieStorage`, `NSURLCache` and `NSURLCredentialStorage`.
    static var operationDefaults: RequestSettings {
        var settings = RequestSettings()
        settings.cookieJar = .processShared
        settings.cache = .shared
        settings.credentialStore = .shared
        return settings
    }
}
