import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A challenge the exchange is deciding how to answer: a 401 response with `WWW-Authenticate`, or the server's
/// certificates on a new HTTPS connection (``serverTrust``, AFNetworking's server-trust challenge).
public struct AuthenticationChallenge: Sendable {
    /// The ``ProtectionSpace/authenticationMethod`` of a server-trust challenge (Foundation's
    /// `NSURLAuthenticationMethodServerTrust`).
    public static let serverTrustMethod = "NSURLAuthenticationMethodServerTrust"

    /// Where the challenge comes from: host, port, scheme and realm.
    public struct ProtectionSpace: Sendable, Hashable {
        /// The server's host, lower-cased.
        public let host: String
        /// The server's port.
        public let port: Int
        /// `http` or `https`.
        public let scheme: String
        /// The realm, or `nil` when the server gave none.
        public let realm: String?
        /// The authentication method: `"basic"` or `"digest"`, or ``AuthenticationChallenge/serverTrustMethod``.
        public let authenticationMethod: String
    }

    /// The scheme Courier will answer (Digest is preferred over Basic); for a server-trust challenge, a scheme named
    /// ``serverTrustMethod`` without parameters.
    public let scheme: AuthenticationScheme
    /// The protection space.
    public let protectionSpace: ProtectionSpace
    /// How many times a credential has already been sent for this challenge in this exchange.
    public let previousFailureCount: Int
    /// The credential that failed last time, if any.
    public let proposedCredential: URLCredential?
    /// The 401 response; nil for a server-trust challenge (no response has arrived yet).
    public let failureResponse: HTTPURLResponse?
    /// The request that got the 401, or that waits for the connection being made.
    public let request: URLRequest
    /// The server's certificates and the security policy's verdict, for a server-trust challenge; nil for a 401.
    /// Answer with ``AuthenticationDisposition/acceptServerTrust`` to trust the server,
    /// ``AuthenticationDisposition/rejectProtectionSpace`` to refuse it, `.performDefaultHandling` to apply the
    /// verdict, `.cancel` to fail the request.
    public let serverTrust: ServerTrust?

    /// A challenge for a 401 response.
    init(
        scheme: AuthenticationScheme, protectionSpace: ProtectionSpace, previousFailureCount: Int,
        proposedCredential: URLCredential?, failureResponse: HTTPURLResponse, request: URLRequest
    ) {
        self.scheme = scheme
        self.protectionSpace = protectionSpace
        self.previousFailureCount = previousFailureCount
        self.proposedCredential = proposedCredential
        self.failureResponse = failureResponse
        self.request = request
        self.serverTrust = nil
    }

    /// A server-trust challenge for `trust`, asked on behalf of `request`.
    init(serverTrust trust: ServerTrust, request: URLRequest) {
        scheme = AuthenticationScheme(name: Self.serverTrustMethod, parameters: [:])
        protectionSpace = ProtectionSpace(
            host: trust.host.lowercased(), port: trust.port, scheme: "https", realm: nil, authenticationMethod: Self.serverTrustMethod
        )
        previousFailureCount = 0
        proposedCredential = nil
        failureResponse = nil
        self.request = request
        serverTrust = trust
    }

    /// The transport's decision for a server-trust challenge answered with `disposition`.
    static func serverTrustDecision(for disposition: AuthenticationDisposition) -> ServerTrustDecision {
        switch disposition {
        case .acceptServerTrust: return .accept
        case .rejectProtectionSpace: return .reject
        case .cancel: return .cancel
        // A block written for 401s answers `.useCredential` with a password: that is no verdict on a certificate.
        case .performDefaultHandling, .continueWithoutCredential, .useCredential: return .performDefaultHandling
        }
    }
}

/// What the challenge hook decides.
public enum AuthenticationDisposition: Sendable {
    /// Answer with this credential. For a server-trust challenge, the same as `.performDefaultHandling` (a block
    /// written for 401s must not trust certificates by accident): trust a server with `.acceptServerTrust`.
    case useCredential(URLCredential)
    /// Do what Courier would do without a hook: the request's credential, then the credential store; for a
    /// server-trust challenge, the security policy's verdict.
    case performDefaultHandling
    /// Deliver the 401 response as the result; for a server-trust challenge, the same as `.performDefaultHandling`.
    case continueWithoutCredential
    /// Cancel the exchange (it fails with `URLError(.cancelled)`).
    case cancel
    /// Trust the server of a server-trust challenge whatever the policy said; for a 401, the same as
    /// `.performDefaultHandling`.
    case acceptServerTrust
    /// Refuse the server of a server-trust challenge whatever the policy said (the request fails with
    /// `URLError(.serverCertificateUntrusted)`); for a 401, deliver the 401 as `.continueWithoutCredential` does.
    case rejectProtectionSpace
}
