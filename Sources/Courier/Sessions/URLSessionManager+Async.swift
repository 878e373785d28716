import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// async/await twins of the task methods. Each creates a task (visible in ``URLSessionManager/tasks``
/// while it runs, seen by the delegate blocks), resumes it and waits; cancelling the calling
/// Swift task cancels it.
extension URLSessionManager {
    /// Loads `request` into memory: the body and the response. Any status is returned; only
    /// transport failures throw. `interceptors` (default none) run after the session's own, for this request.
    public func data(for request: URLRequest, interceptors: [any RequestInterceptor] = []) async throws -> (Data, HTTPURLResponse) {
        let task = dataTask(with: request, completionHandler: nil)
        if !interceptors.isEmpty { task.interceptors = interceptors }
        let data = try await task.value
        return (data, try await task.completedResponse)
    }

    /// Uploads `bodyData` with `request`: the response body and the response.
    public func upload(for request: URLRequest, from bodyData: Data) async throws -> (Data, HTTPURLResponse) {
        let task = uploadTask(with: request, from: bodyData, completionHandler: nil)
        let data = try await task.value
        return (data, try await task.completedResponse)
    }

    /// Downloads `request` to `destination` (which must not exist) and returns it.
    /// - Throws: the transport's error, or `URLError(.cannotMoveFile)` when the file cannot be
    ///   moved there (it is then kept at the temporary location named in the error).
    public func download(_ request: URLRequest, to destination: URL) async throws -> URL {
        let task = downloadTask(with: request, destination: { _, _ in destination }, completionHandler: nil)
        return try await task.value ?? destination
    }

    /// Continues a download from resume data to `destination` and returns it.
    public func download(resumingWith resumeData: Data, to destination: URL) async throws -> URL {
        let task = downloadTask(withResumeData: resumeData, destination: { _, _ in destination }, completionHandler: nil)
        return try await task.value ?? destination
    }

    /// Sends `request` and returns as soon as the response head arrived, with the body as an
    /// `AsyncSequence` of `Data` chunks read with backpressure (the server waits while the
    /// sequence is not iterated). Foundation on Linux has no `bytes(for:)`.
    ///
    /// This runs a bare exchange with the session's transport (and so its security policy), stages, cookies,
    /// credentials, cache, content decoding, logger, headers and interceptors, and the session's challenge block;
    /// it is not a ``SessionTask``: the task-level delegate blocks do not see it, and neither the resource timeout
    /// nor ``SessionConfiguration/maximumResponseDataSize`` limits it. Stop iterating and drop the sequence (or
    /// cancel the calling Swift task) to cancel it; cancellation is `URLError(.cancelled)`.
    /// - Parameters:
    ///   - request: The request.
    ///   - body: The request body, streamed with backpressure (for example
    ///     ``HTTPRequestBody/asyncSequence(_:length:)``); it replaces the request's own `httpBody` or
    ///     `httpBodyStream`. Default `nil`: the request's own body, if any. A body that cannot be produced again
    ///     (an async sequence, a stream) is not resent by a retry.
    ///   - interceptors: Run after the session's own (``SessionConfiguration/interceptors``), for this request.
    ///     Default none.
    public func bytes(
        for request: URLRequest, body: HTTPRequestBody? = nil, interceptors: [any RequestInterceptor] = []
    ) async throws -> (HTTPURLResponse, ResponseBodyStream) {
        var exchangeConfiguration = baseExchangeConfiguration()
        exchangeConfiguration.sink = .stream
        exchangeConfiguration.body = body
        exchangeConfiguration.interceptors += interceptors
        if let block = blocks.withLock({ $0.sessionDidReceiveChallenge }) {
            exchangeConfiguration.handlers.challengeHandler = { [weak self] challenge in
                guard let self else { return .performDefaultHandling }
                return await onDelegateQueue { [self] in block(self, challenge) }
            }
        }
        let exchange = Exchange(request: configuration.prepared(request), configuration: exchangeConfiguration)
        let result = try await exchange.result()
        return (result.response, result.body ?? ResponseBodyStream(data: result.data ?? Data()))
    }
}
