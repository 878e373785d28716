import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What an ``Exchange`` tells whoever runs it, and what it asks them, as it runs: one value with a method per event
/// (a delegate, in URLSession's terms), where each method has a default that does what the exchange does with no one
/// to ask, so a conforming type implements only what it needs.
///
/// The session tasks and the operations each hand their exchanges one small value that conforms (holding the task or
/// operation weakly); ``ExchangeHandlers`` conforms with a closure per method, for a caller who runs an exchange
/// directly. The exchange calls the telling methods on its own task, never on a queue: hop to one yourself when the
/// work must run there.
public protocol ExchangeHooks: Sendable {
    /// Whether ``answer(_:)`` decides authentication challenges. When `false` the exchange answers them itself (with
    /// ``ExchangeConfiguration/credential``, then ``ExchangeConfiguration/credentialStore``, never resending a
    /// credential that failed) and asks nothing about a server's trust. Default `false`.
    var answersChallenges: Bool { get }
    /// Whether ``newBodyStream(for:)`` can supply a fresh body stream, so that a request whose body is a stream may
    /// be sent again (a 307/308 redirect, an authentication retry, an interceptor's retry). Default `false`: such a
    /// resend fails with `URLError(.requestBodyStreamExhausted)`.
    var suppliesBodyStreams: Bool { get }

    /// Decides how to answer an authentication challenge (a 401 or 407, or a server's trust on a new HTTPS
    /// connection); asked only when ``answersChallenges``. Default `.performDefaultHandling`.
    func answer(_ challenge: AuthenticationChallenge) async -> AuthenticationDisposition
    /// Sees every redirect hop with the proposed next request and the 3xx response; returns the request to send
    /// (possibly changed), or `nil` to stop and deliver the 3xx response. Default: `proposed`.
    func willRedirect(_ proposed: URLRequest, after response: HTTPURLResponse) async -> URLRequest?
    /// Sees each response about to be stored in ``ExchangeConfiguration/cache`` and returns what to store, or `nil`
    /// for nothing. Default: `proposed`.
    func willCache(_ proposed: CachedURLResponse) async -> CachedURLResponse?
    /// A fresh body stream for a request whose stream body must be sent again; asked only when
    /// ``suppliesBodyStreams``. Default `nil`.
    func newBodyStream(for request: URLRequest) -> InputStream?
    /// Called before each retry an interceptor decided, before its delay is waited. Default: nothing.
    func willRetry(_ event: RetryEvent) async

    /// Request body progress, as the socket accepts the bytes. Default: nothing.
    func didSendBody(_ progress: TransferProgress)
    /// Called once with the final response head, before its body. Default: nothing.
    func didReceive(response: HTTPURLResponse)
    /// Called once, after ``didReceive(response:)``, for an exchange with a ``ExchangeConfiguration/resumption``:
    /// how the answer treats the kept bytes, and the receive progress that starts from it. Default: nothing.
    func didDecideResumption(_ outcome: ResumptionOutcome, progress: TransferProgress)
    /// Decides whether the final body goes to the sink, is handed to the caller unread, or is refused, with the
    /// head and, for an exchange with a ``ExchangeConfiguration/resumption``, how the answer treats the kept bytes.
    /// Default `.receive`.
    func decideBody(of response: HTTPURLResponse, resumption: ResumptionOutcome?) async -> BodyDecision
    /// Each chunk of the final body as the sink takes it (not for a body handed to the caller, who reads the chunks).
    /// Default: nothing.
    func didReceive(data: Data)
    /// Response body progress, for each chunk delivered. Default: nothing.
    func didReceiveBody(_ progress: TransferProgress)
    /// Called once when the exchange ends, on the exchange's task. Default: nothing.
    func didComplete(_ outcome: Result<ExchangeResult, any Error>)
}

extension ExchangeHooks {
    public var answersChallenges: Bool { false }
    public var suppliesBodyStreams: Bool { false }
    public func answer(_ challenge: AuthenticationChallenge) async -> AuthenticationDisposition { .performDefaultHandling }
    public func willRedirect(_ proposed: URLRequest, after response: HTTPURLResponse) async -> URLRequest? { proposed }
    public func willCache(_ proposed: CachedURLResponse) async -> CachedURLResponse? { proposed }
    public func newBodyStream(for request: URLRequest) -> InputStream? { nil }
    public func willRetry(_ event: RetryEvent) async {}
    public func didSendBody(_ progress: TransferProgress) {}
    public func didReceive(response: HTTPURLResponse) {}
    public func didDecideResumption(_ outcome: ResumptionOutcome, progress: TransferProgress) {}
    public func decideBody(of response: HTTPURLResponse, resumption: ResumptionOutcome?) async -> BodyDecision { .receive }
    public func didReceive(data: Data) {}
    public func didReceiveBody(_ progress: TransferProgress) {}
    public func didComplete(_ outcome: Result<ExchangeResult, any Error>) {}
}

/// ``ExchangeHooks`` as closures, one per method, for a caller who runs an ``Exchange`` directly: a `nil` closure is
/// the method's default. Set them through ``ExchangeConfiguration/handlers``.
public struct ExchangeHandlers: ExchangeHooks {
    /// ``ExchangeHooks/answer(_:)``; setting it makes ``answersChallenges`` `true`. Default `nil`.
    public var challengeHandler: (@Sendable (AuthenticationChallenge) async -> AuthenticationDisposition)?
    /// ``ExchangeHooks/willRedirect(_:after:)``. Default `nil`: follow.
    public var redirectHandler: (@Sendable (_ proposed: URLRequest, _ response: HTTPURLResponse) async -> URLRequest?)?
    /// ``ExchangeHooks/willCache(_:)``. Default `nil`: store what came.
    public var willCacheResponse: (@Sendable (CachedURLResponse) async -> CachedURLResponse?)?
    /// ``ExchangeHooks/newBodyStream(for:)``; setting it makes ``suppliesBodyStreams`` `true`. Default `nil`.
    public var newBodyStream: (@Sendable (URLRequest) -> InputStream?)?
    /// ``ExchangeHooks/willRetry(_:)``. Default `nil`.
    public var willRetry: (@Sendable (RetryEvent) async -> Void)?
    /// ``ExchangeHooks/didSendBody(_:)``. Default `nil`.
    public var uploadProgress: (@Sendable (TransferProgress) -> Void)?
    /// ``ExchangeHooks/didReceive(response:)``. Default `nil`.
    public var didReceiveResponse: (@Sendable (HTTPURLResponse) -> Void)?
    /// ``ExchangeHooks/didDecideResumption(_:progress:)``. Default `nil`.
    public var didDecideResumption: (@Sendable (ResumptionOutcome, TransferProgress) -> Void)?
    /// ``ExchangeHooks/decideBody(of:resumption:)``. Default `nil`: `.receive`.
    public var bodyDecision: (@Sendable (HTTPURLResponse, ResumptionOutcome?) async -> BodyDecision)?
    /// ``ExchangeHooks/didReceive(data:)``. Default `nil`.
    public var didReceiveData: (@Sendable (Data) -> Void)?
    /// ``ExchangeHooks/didReceiveBody(_:)``. Default `nil`.
    public var downloadProgress: (@Sendable (TransferProgress) -> Void)?
    /// ``ExchangeHooks/didComplete(_:)``. Default `nil`.
    public var completion: (@Sendable (Result<ExchangeResult, any Error>) -> Void)?

    /// Creates handlers with every closure `nil`: each method does its default.
    public init() {}

    public var answersChallenges: Bool { challengeHandler != nil }
    public var suppliesBodyStreams: Bool { newBodyStream != nil }

    public func answer(_ challenge: AuthenticationChallenge) async -> AuthenticationDisposition {
        await challengeHandler?(challenge) ?? .performDefaultHandling
    }

    public func willRedirect(_ proposed: URLRequest, after response: HTTPURLResponse) async -> URLRequest? {
        guard let redirectHandler else { return proposed }
        return await redirectHandler(proposed, response)
    }

    public func willCache(_ proposed: CachedURLResponse) async -> CachedURLResponse? {
        guard let willCacheResponse else { return proposed }
        return await willCacheResponse(proposed)
    }

    public func newBodyStream(for request: URLRequest) -> InputStream? { newBodyStream?(request) }
    public func willRetry(_ event: RetryEvent) async { await willRetry?(event) }
    public func didSendBody(_ progress: TransferProgress) { uploadProgress?(progress) }
    public func didReceive(response: HTTPURLResponse) { didReceiveResponse?(response) }

    public func didDecideResumption(_ outcome: ResumptionOutcome, progress: TransferProgress) {
        didDecideResumption?(outcome, progress)
    }

    public func decideBody(of response: HTTPURLResponse, resumption: ResumptionOutcome?) async -> BodyDecision {
        await bodyDecision?(response, resumption) ?? .receive
    }

    public func didReceive(data: Data) { didReceiveData?(data) }
    public func didReceiveBody(_ progress: TransferProgress) { downloadProgress?(progress) }
    public func didComplete(_ outcome: Result<ExchangeResult, any Error>) { completion?(outcome) }
}
