import Foundation
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A task that keeps the response body in memory, like `URLSessionDataTask`. Its completion
/// handler receives the body serialized by the manager's ``URLSessionManager/responseSerializer``.
public class DataTask: SessionTask, @unchecked Sendable {
    /// The data-task completion handler: the response, the serialized object, and the error
    /// (the transport's, or the serializer's).
    public typealias CompletionHandler = @Sendable (URLResponse?, Any?, (any Error)?) -> Void

    /// The completion as kept by the task: the handler, with the task itself first.
    typealias TaskCompletion = @Sendable (DataTask, URLResponse?, Any?, (any Error)?) -> Void

    /// The whole body once received (while it arrives, the exchange's memory sink holds it).
    private let body = Mutex<Data?>(nil)
    private let completionHandler: TaskCompletion?
    /// The body serialized by the manager's serializer, once, in the task's own task (never on the completion
    /// queue): the completion handler and the notification take it; the async verbs share it when it is shareable.
    private let serialization: ResponseSerialization

    init(
        identifier: Int, request: URLRequest, manager: URLSessionManager, completionHandler: TaskCompletion?,
        reports: TransferDirection = .download
    ) {
        self.completionHandler = completionHandler
        serialization = ResponseSerialization(serializer: manager.responseSerializer)
        super.init(identifier: identifier, request: request, manager: manager, reports: reports)
    }

    /// The most bytes of the response body this task holds, set before it is resumed: a longer `Content-Length`
    /// fails it at once, a longer body as soon as it passes the limit, with `URLError(.dataLengthExceedsMaximum)`.
    /// Default `nil`: the session's ``SessionConfiguration/maximumResponseDataSize``.
    public var maximumResponseDataSize: Int64? {
        get { responseLimit.withLock { $0 } }
        set { responseLimit.withLock { $0 = newValue } }
    }

    private let responseLimit = Mutex<Int64?>(nil)

    /// The response body received so far (all of it once completed).
    public var responseData: Data { body.withLock { $0 } ?? exchange?.receivedData ?? Data() }

    override func configure(_ configuration: inout ExchangeConfiguration) {
        configuration.sink = .memory
        configuration.maximumBodySize = maximumResponseDataSize ?? manager.configuration.maximumResponseDataSize
    }

    /// What the manager's response block makes of the final head: receive the body, hand it to a download task, or
    /// cancel.
    func decideBody(of response: HTTPURLResponse) async -> BodyDecision {
        switch await manager.dataTaskDidReceiveResponse(self, response) {
        case .allow:
            return .receive
        case .becomeDownload:
            return .handOver
        case .cancel:
            return .refuse(URLError(.cancelled, userInfo: [
                NSURLErrorFailingURLErrorKey: response.url as Any,
                NSLocalizedDescriptionKey: "The response block cancelled the task.",
            ]))
        }
    }

    override func run(_ exchange: Exchange) async {
        let result: ExchangeResult
        do {
            result = try await exchange.result()
        } catch {
            await finish(response: exchange.response, error: error)
            return
        }
        if result.body != nil {
            // The response block turned the task into a download: the body was handed over unread.
            await becomeDownload(result)
            return
        }
        let data = result.data ?? Data()
        body.withLock { $0 = data }
        serialization.prepare(.body(result.response, data), with: manager.responseSerializer)
        await finish(response: result.response, error: nil)
    }

    /// The body as `serializer` makes it, for an async verb after completion: the task's own result when it came
    /// from the same serializer and can be shared, else made now.
    func serializedObject(with serializer: any URLResponseSerialization, response: HTTPURLResponse) throws -> Any? {
        let result = serialization.result(with: serializer) { .body(response, responseData) }
        if let error = result.error { throw error }
        return result.object
    }

    /// Hands the rest of the body to a new download task, as URLSession's `.becomeDownload`.
    /// The data task ends quietly: it calls no completion of its own.
    private func becomeDownload(_ result: ExchangeResult) async {
        let download = manager.makeDownloadTask(
            kind: .request(originalRequest ?? result.request), progress: nil, destination: nil, completionHandler: nil
        )
        await manager.dataTaskDidBecomeDownloadTask(self, download)
        await finishQuietly(response: result.response)
        await download.adopt(result, from: self)
    }

    override func deliverCompletion(error: (any Error)?) {
        let data = responseData
        let response = self.response
        let serialized = error == nil ? serialization.take { .body(response, data) } : nil
        let handler = completionHandler
        let posts = postsNotifications
        // Nothing to run on the completion queue (an async caller, notifications off): no hop to it.
        guard handler != nil || posts else { return }
        manager.completionContext.deliver { [self] in
            let object = serialized?.object
            let finalError = error ?? serialized?.error
            handler?(self, response, object, finalError)
            guard posts else { return }
            var userInfo: [String: Any] = [SessionNotificationKey.responseData: data]
            if let object { userInfo[SessionNotificationKey.serializedResponse] = object }
            if let finalError { userInfo[SessionNotificationKey.error] = finalError }
            CourierNotifier.postNow(.courierTaskDidComplete, object: self, userInfo: userInfo)
        }
    }
}

/// A task that sends a body from a file, from memory or from a stream, like
/// `URLSessionUploadTask`. Its ``progress`` is the upload's.
public final class UploadTask: DataTask, @unchecked Sendable {
    /// Where the body comes from.
    enum Source: Sendable {
        case file(URL)
        case data(Data)
        case streamed
    }

    private let source: Source

    init(identifier: Int, request: URLRequest, source: Source, manager: URLSessionManager, completionHandler: TaskCompletion?) {
        self.source = source
        super.init(identifier: identifier, request: request, manager: manager, completionHandler: completionHandler, reports: .upload)
    }

    /// The upload's progress.
    public override var progress: Progress { uploadProgress }

    override func configure(_ configuration: inout ExchangeConfiguration) {
        super.configure(&configuration)
        switch source {
        case .data(let data):
            configuration.body = .data(data)
        case .file(let url):
            configuration.body = try? HTTPRequestBody.file(url)
            if configuration.body == nil {
                configuration.body = HTTPRequestBody(source: .inputStream { throw Self.unreadable(url) }, length: nil)
            }
        case .streamed:
            let length = originalRequest?.value(forHTTPHeaderField: "Content-Length").flatMap { Int64($0) }
            if let stream = manager.taskNeedNewBodyStream(self) ?? originalRequest?.httpBodyStream {
                configuration.body = .inputStream(stream, length: length)
            }
        }
    }

    private static func unreadable(_ url: URL) -> URLError {
        URLError(.fileDoesNotExist, userInfo: [
            NSURLErrorFailingURLErrorKey: url,
            NSLocalizedDescriptionKey: "Cannot read the upload file \(url.path).",
        ])
    }
}
