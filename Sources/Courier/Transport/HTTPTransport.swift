import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One request/response exchange on the wire.
///
/// A transport sends exactly the request it is given: it never follows redirects, never answers
/// authentication challenges and never stores cookies (the pipeline's stages above it do all three,
/// so they see every hop). It streams bodies both ways with backpressure, reports request body
/// bytes as the socket accepts them, honours Swift task cancellation and
/// ``TransportRequest/cancellation`` at every moment, and surfaces failures as `URLError` with the
/// failing URL attached.
///
/// ``EngineTransport`` is the default implementation.
public protocol HTTPTransport: Sendable {
    /// Sends `request` and returns as soon as the response head has arrived.
    ///
    /// The returned body must be consumed (or dropped, which cancels the request). Cancelling the
    /// calling task before the head arrives cancels the request and throws `URLError(.cancelled)`.
    func send(_ request: TransportRequest) async throws -> TransportResponse

    /// Cancels every request in flight and releases the engine's connections and threads.
    /// The transport cannot be used afterwards.
    func shutdown() async throws
}

/// A request as a transport sends it: already resolved, with its final headers and body.
public struct TransportRequest: Sendable {
    /// The absolute `http` or `https` URL.
    public var url: URL
    /// The HTTP method, for example `"GET"`.
    public var method: String
    /// The header fields in the order they are sent. Names are case-insensitive.
    public var headers: [(name: String, value: String)]
    /// The body, or `nil` for none.
    public var body: HTTPRequestBody?
    /// The idle timeout: the request fails with `URLError(.timedOut)` when no byte moves in either
    /// direction for this many seconds once the request is on a connection. Zero or less means no timeout.
    /// (Waiting for a connection has its own limit, the transport's.)
    public var timeoutInterval: TimeInterval
    /// Called with the number of request body bytes the socket has just accepted.
    /// Called on an engine thread; keep it cheap.
    public var didSendBodyBytes: (@Sendable (Int64) -> Void)?
    /// Cancels the request from outside the awaiting task: a transport registers with
    /// ``TransportCancellation/onCancel(_:)`` how to abort the request and fails it with `URLError(.cancelled)` when
    /// that runs. Default `nil`: only cancelling the awaiting task cancels it.
    public var cancellation: TransportCancellation?
    /// Decides on the server's certificates when a new HTTPS connection is made while this request waits for one
    /// (a server-trust challenge), given the security policy's verdict; must answer within the transport's connect
    /// timeout. Default `nil`: the policy decides. Transports without TLS hooks ignore it.
    public var serverTrustHandler: (@Sendable (ServerTrust) async -> ServerTrustDecision)?

    /// Creates a transport request.
    /// - Parameters:
    ///   - url: The absolute `http` or `https` URL.
    ///   - method: The HTTP method. Default `"GET"`.
    ///   - headers: The header fields. Default none.
    ///   - body: The body. Default `nil`.
    ///   - timeoutInterval: The idle timeout in seconds. Default 60.
    ///   - didSendBodyBytes: Upload progress callback. Default `nil`.
    ///   - cancellation: A handle that cancels the request from outside the awaiting task. Default `nil`.
    public init(
        url: URL,
        method: String = "GET",
        headers: [(name: String, value: String)] = [],
        body: HTTPRequestBody? = nil,
        timeoutInterval: TimeInterval = 60,
        didSendBodyBytes: (@Sendable (Int64) -> Void)? = nil,
        cancellation: TransportCancellation? = nil
    ) {
        self.url = url
        self.method = method
        self.headers = headers
        self.body = body
        self.timeoutInterval = timeoutInterval
        self.didSendBodyBytes = didSendBodyBytes
        self.cancellation = cancellation
    }
}

/// A response head and its streaming body, as a transport returns them.
public struct TransportResponse: Sendable {
    /// The status line and header fields.
    public let head: HTTPURLResponse
    /// The header fields as received, in order and with repeats (for example several
    /// `Set-Cookie` fields, which `HTTPURLResponse` would join with commas).
    public let headerFields: [(name: String, value: String)]
    /// The body bytes, streamed with backpressure: while nobody asks for the next chunk, the
    /// engine stops reading from the socket.
    public let body: ResponseBodyStream

    /// The protocol version the response came over, for example `"HTTP/1.1"` or `"HTTP/2.0"`.
    public let httpVersion: String

    /// The new connection this request waited for, or `nil` when it went out on a pooled connection (or the
    /// transport cannot tell). Default `nil`.
    public let connection: ConnectionEstablishment?

    /// How many times the request was sent again on a new connection because a reused connection was closed before
    /// any byte of the response arrived: 0 or 1 for HTTP/1.1, up to 3 for HTTP/2 streams the server never processed.
    /// Default 0.
    public let staleConnectionRetries: Int

    /// Creates a transport response.
    /// - Parameters:
    ///   - head: The response head.
    ///   - headerFields: The header fields in the order received.
    ///   - body: The body, streaming.
    ///   - httpVersion: The protocol version. Default `"HTTP/1.1"`.
    ///   - connection: The new connection the request waited for. Default `nil`.
    ///   - staleConnectionRetries: Retries after a stale connection. Default 0.
    public init(
        head: HTTPURLResponse,
        headerFields: [(name: String, value: String)],
        body: ResponseBodyStream,
        httpVersion: String = "HTTP/1.1",
        connection: ConnectionEstablishment? = nil,
        staleConnectionRetries: Int = 0
    ) {
        self.head = head
        self.headerFields = headerFields
        self.body = body
        self.httpVersion = httpVersion
        self.connection = connection
        self.staleConnectionRetries = staleConnectionRetries
    }
}
