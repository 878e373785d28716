import Foundation
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A credential an ``AuthenticationInterceptor`` applies to requests and refreshes (an OAuth access token, say).
public protocol AuthenticationCredential: Sendable {
    /// Whether the credential must be refreshed before it is used (for example, it expires within a minute).
    var requiresRefresh: Bool { get }
    /// Puts the credential on `request` (usually its `Authorization` header).
    func apply(to request: inout URLRequest)
}

extension AuthenticationCredential {
    /// Whether `request` carries this credential: every header field ``apply(to:)`` sets has the same value on it.
    public func isCarried(by request: URLRequest) -> Bool {
        var probe = URLRequest(url: request.url ?? URL(fileURLWithPath: "/"))
        probe.allHTTPHeaderFields = [:]
        apply(to: &probe)
        let fields = probe.allHTTPHeaderFields ?? [:]
        return !fields.isEmpty && fields.allSatisfy { request.value(forHTTPHeaderField: $0.key) == $0.value }
    }
}

/// A bearer token (`Authorization: Bearer <accessToken>`) that expires.
public struct BearerCredential: AuthenticationCredential, Hashable {
    /// The access token.
    public var accessToken: String
    /// The refresh token, for the refresh closure. Default `nil`.
    public var refreshToken: String?
    /// When the access token stops working. Default `.distantFuture`.
    public var expiration: Date

    /// A token; it needs a refresh once less than a minute of its validity is left.
    public init(accessToken: String, refreshToken: String? = nil, expiration: Date = .distantFuture) {
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.expiration = expiration
    }

    /// Less than 60 s left.
    public var requiresRefresh: Bool { expiration.timeIntervalSinceNow < 60 }

    /// Sets `Authorization: Bearer <accessToken>`.
    public func apply(to request: inout URLRequest) {
        request.setValue("Bearer \(accessToken)", forHTTPHeaderField: "Authorization")
    }
}

/// Why an ``AuthenticationInterceptor`` failed a request.
public enum AuthenticationInterceptorError: Error, Sendable, CustomStringConvertible {
    /// There is no credential to apply.
    case missingCredential
    /// More refreshes than the refresh window allows: the server keeps refusing fresh credentials.
    case excessiveRefresh(count: Int, within: TimeInterval)

    /// One sentence.
    public var description: String {
        switch self {
        case .missingCredential:
            return "There is no credential to authenticate the request with."
        case .excessiveRefresh(let count, let window):
            return "The credential was refreshed \(count) times within \(String(format: "%.0f", window)) s and the server still refuses it; not refreshing again."
        }
    }
}

/// Applies a credential to every request, refreshes it when it expires or a request gets `401`, and replays the
/// refused requests with the new one (Alamofire's `AuthenticationInterceptor`).
///
/// One refresh at a time, shared: every request that meets an expired credential or a `401` while a refresh runs
/// waits for that refresh (single flight), then goes (again) with its result; a failed refresh fails all of them with
/// its error. A request refused with a credential older than the current one is replayed at once, without another
/// refresh. The refresh window (default: at most 2 refreshes within 30 s) stops a refresh loop against a server that
/// refuses every credential with ``AuthenticationInterceptorError/excessiveRefresh(count:within:)``.
public final class AuthenticationInterceptor<Credential: AuthenticationCredential>: RequestInterceptor {
    /// The most refreshes within ``refreshWindowDuration``. Default 2.
    public let maximumRefreshes: Int
    /// The refresh window's length in seconds. Default 30.
    public let refreshWindowDuration: TimeInterval

    private let refresh: @Sendable (Credential) async throws -> Credential
    private let state: Mutex<State>

    private struct State {
        var credential: Credential?
        var refreshing: [CheckedContinuation<Credential, any Error>]?
        var refreshTimes: [Date] = []
    }

    /// An interceptor for `credential` (default `nil`: requests fail with
    /// ``AuthenticationInterceptorError/missingCredential`` until ``credential`` is set), refreshed by `refresh`.
    public init(
        credential: Credential?,
        maximumRefreshes: Int = 2,
        refreshWindowDuration: TimeInterval = 30,
        refresh: @escaping @Sendable (Credential) async throws -> Credential
    ) {
        self.maximumRefreshes = max(1, maximumRefreshes)
        self.refreshWindowDuration = refreshWindowDuration
        self.refresh = refresh
        self.state = Mutex(State(credential: credential))
    }

    /// The credential applied to requests (after the last refresh).
    public var credential: Credential? {
        get { state.withLock { $0.credential } }
        set { state.withLock { $0.credential = newValue } }
    }

    /// Applies the credential, after waiting for a refresh in progress, or refreshing one that requires it.
    public func adapt(_ request: URLRequest, for attempt: RequestAttempt) async throws -> URLRequest {
        let current: Credential = try await currentCredential()
        var adapted = request
        current.apply(to: &adapted)
        return adapted
    }

    /// On `401`: replays a request sent with an older credential; otherwise refreshes (or joins the refresh in
    /// progress) and replays it, or fails it with the refresh's error.
    public func retry(_ request: URLRequest, response: HTTPURLResponse?, error: any Error, attempt: RequestAttempt) async -> RetryDecision {
        // A 401 is answered at most once per allowed refresh: a credential the server refuses, or one this
        // interceptor cannot recognise on the request, cannot make a request go round for ever.
        guard response?.statusCode == 401, attempt.number <= maximumRefreshes else { return .doNotRetry }
        do {
            _ = try await refreshed(refusedRequest: request)
            return .retry
        } catch {
            return .doNotRetry(with: error)
        }
    }

    /// The credential to use now: the current one when no refresh runs and it needs none.
    private func currentCredential() async throws -> Credential {
        let usable = state.withLock { state -> Credential? in
            guard state.refreshing == nil, let credential = state.credential, !credential.requiresRefresh else { return nil }
            return credential
        }
        if let usable { return usable }
        return try await refreshed(refusedRequest: nil)
    }

    /// What a request that needs a refreshed credential does.
    private enum RefreshStart {
        /// Wait for the refresh in progress.
        case join
        /// Use this credential (it no longer needs a refresh).
        case use(Credential)
        /// Start the refresh of this credential.
        case refresh(Credential)
        /// Fail with this error.
        case fail(any Error)
    }

    /// The result of the refresh in progress; or the current credential when it needs no refresh (it requires none,
    /// or `refusedRequest` was sent with an older one); or the result of a new refresh.
    private func refreshed(refusedRequest: URLRequest?) async throws -> Credential {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Credential, any Error>) in
            let now = Date()
            let start = state.withLock { state -> RefreshStart in
                if state.refreshing != nil {
                    state.refreshing?.append(continuation)
                    return .join
                }
                guard let credential = state.credential else { return .fail(AuthenticationInterceptorError.missingCredential) }
                if let refusedRequest {
                    if !credential.isCarried(by: refusedRequest) { return .use(credential) }
                } else if !credential.requiresRefresh {
                    return .use(credential)
                }
                state.refreshTimes.removeAll { now.timeIntervalSince($0) > refreshWindowDuration }
                guard state.refreshTimes.count < maximumRefreshes else {
                    return .fail(AuthenticationInterceptorError.excessiveRefresh(count: state.refreshTimes.count, within: refreshWindowDuration))
                }
                state.refreshTimes.append(now)
                state.refreshing = [continuation]
                return .refresh(credential)
            }
            switch start {
            case .join: break
            case .use(let credential): continuation.resume(returning: credential)
            case .fail(let error): continuation.resume(throwing: error)
            case .refresh(let credential):
                // Unstructured: the refresh belongs to every waiting request, not to the one that started it.
                Task { await self.runRefresh(of: credential) }
            }
        }
    }

    private func runRefresh(of credential: Credential) async {
        let result: Result<Credential, any Error>
        do {
            result = .success(try await refresh(credential))
        } catch {
            result = .failure(error)
        }
        let waiters = state.withLock { state -> [CheckedContinuation<Credential, any Error>] in
            if case .success(let fresh) = result { state.credential = fresh }
            defer { state.refreshing = nil }
            return state.refreshing ?? []
        }
        for waiter in waiters { waiter.resume(with: result) }
    }
}
