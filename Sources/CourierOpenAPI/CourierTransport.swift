import Courier
import Foundation
import HTTPTypes
import OpenAPIRuntime
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A swift-openapi-runtime `ClientTransport` that sends every request of a generated OpenAPI client through a
/// Courier session.
///
/// Each call goes through `URLSessionManager.bytes(for:body:interceptors:)`, so everything configured on
/// the session applies to it: the security policy (pins included) of the session's transport, its stages,
/// interceptors and retries, cookies, credentials and challenge block, HTTP cache, content decoding, additional
/// headers, request timeout and logger. The request body is streamed to the server when its length is unknown or
/// larger than ``Configuration/maximumBufferedRequestBodySize``; the response body is handed back as soon as the
/// head arrives and streams from the connection with backpressure (the server waits while it is not read).
///
/// ```swift
/// let session = URLSessionManager(configuration: .default)
/// let client = Client(serverURL: try Servers.Server1.url(), transport: CourierTransport(session: session))
/// ```
///
/// Cancellation: cancelling the Swift task that calls ``send(_:body:baseURL:operationID:)`` cancels the request,
/// and cancelling a task that iterates the returned body (or dropping the body before its end) cancels the
/// download. Either way the error is Courier's `URLError(.cancelled)`, never `CancellationError` (a generated
/// client wraps it in its `ClientError`, as it wraps every transport error).
///
/// Keep the session valid while response bodies are read: these calls are not session tasks, so invalidating the
/// session does not wait for them, and a session that made its own transport shuts it down, cutting off every
/// body still streaming.
public struct CourierTransport: ClientTransport {
    /// The session every request goes through.
    public let session: URLSessionManager
    /// How requests are made from the client's; see ``Configuration``.
    public var configuration: Configuration

    /// Creates a transport over `session`.
    /// - Parameters:
    ///   - session: The session every request goes through (an `HTTPSessionManager` works too; its own
    ///     `baseURL` is not used: the client's server URL is).
    ///   - configuration: How requests are made. Default `Configuration()`: the session's timeout, bodies of up to
    ///     256 KiB with a known length sent from memory.
    public init(session: URLSessionManager, configuration: Configuration = Configuration()) {
        self.session = session
        self.configuration = configuration
    }

    /// Sends `request` with `body` to the server at `baseURL` and returns as soon as the response head has arrived.
    ///
    /// Any status is returned as a response (a 404 or a 500 is not an error). The response body streams from the
    /// connection; it is `nil` for a `HEAD` request and for `204` and `304` responses, which have none.
    /// - Parameters:
    ///   - request: The method, the path (with its query, percent-encoded) relative to `baseURL`, and the header
    ///     fields. A `scheme` or `authority` set on it replaces the one of `baseURL`.
    ///   - body: The request body, or `nil` for none.
    ///   - baseURL: The server's URL: an absolute URL with a host; its path is the prefix of every request's path.
    ///   - operationID: The OpenAPI operation; not used by the transport.
    /// - Throws: ``CourierTransportError`` when the request cannot be made into a URL, a buffered body's length is
    ///   wrong, or the response has a status outside 0...999; Courier's `URLError` when the request fails
    ///   (`URLError(.cancelled)` when cancelled); the error of the request body's sequence when a buffered body
    ///   fails while it is read.
    public func send(
        _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String
    ) async throws -> (HTTPResponse, HTTPBody?) {
        var urlRequest = try URLRequest(request, baseURL: baseURL)
        if let timeoutInterval = configuration.timeoutInterval { urlRequest.timeoutInterval = timeoutInterval }
        let url = urlRequest.url
        do {
            var requestBody: HTTPRequestBody?
            if let body {
                requestBody = try await .streaming(body, bufferingUpTo: configuration.maximumBufferedRequestBodySize)
            }
            let (response, stream) = try await session.bytes(for: urlRequest, body: requestBody)
            let head = try HTTPResponse(response)
            guard Self.hasBody(method: request.method, status: response.statusCode) else {
                // Read to its (empty) end, so the connection goes back to the pool instead of being cancelled.
                for try await _ in stream {}
                return (head, nil)
            }
            return (head, HTTPBody(ResponseBodyChunks(stream: stream, url: url), length: .init(response), iterationBehavior: .single))
        } catch is CancellationError {
            throw URLError(.cancelled, userInfo: [
                NSURLErrorFailingURLErrorKey: url as Any,
                NSLocalizedDescriptionKey: "The request was cancelled.",
            ])
        }
    }

    /// Whether a response to `method` with `status` can have a body (RFC 9110 §6.4.1).
    static func hasBody(method: HTTPRequest.Method, status: Int) -> Bool {
        method != .head && status != 204 && status != 304 && !(100..<200).contains(status)
    }
}
