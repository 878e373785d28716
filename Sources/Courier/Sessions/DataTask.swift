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

    private let body = Mutex(Data())
    private let completionHandler: TaskCompletion?

    init(
        identifier: Int, request: URLRequest, manager: URLSessionManager, completionHandler: TaskCompletion?,
        reports: TransferDirection = .download
    ) {
        self.completionHandler = completionHandler
        super.init(identifier: identifier, request: request, manager: manager, reports: reports)
    }

    /// The response body received so far (all of it once completed).
    public var responseData: Data { body.withLock { $0 } }

    override func configure(_ configuration: inout ExchangeConfiguration) {
        configuration.sink = .stream
        configuration.maximumBodySize = manager.configuration.maximumResponseDataSize
        configuration.didReceiveResponse = { [weak self] response in self?.didReceive(response: response) }
        configuration.downloadProgress = { [weak self] progress in self?.didReceive(progress) }
    }

    override func run(_ exchange: Exchange) async {
        let result: ExchangeResult
        do {
            result = try await exchange.result()
        } catch {
            await finish(response: exchange.response, error: error)
            return
        }
        switch await manager.dataTaskDidReceiveResponse(self, result.response) {
        case .cancel:
            result.body?.cancel()
            cancel()
            await finish(response: result.response, error: URLError(.cancelled, userInfo: [
                NSURLErrorFailingURLErrorKey: result.response.url as Any,
                NSLocalizedDescriptionKey: "The response block cancelled the task.",
            ]))
            return
        case .becomeDownload:
            await becomeDownload(result)
            return
        case .allow:
            break
        }
        do {
            if let stream = result.body {
                for try await chunk in stream {
                    body.withLock { $0.append(chunk) }
                    manager.dataTaskDidReceiveData(self, chunk)
                }
            }
        } catch {
            await finish(response: result.response, error: error)
            return
        }
        await manager.dataTaskWillCacheResponse(self, response: result.response, data: responseData)
        await finish(response: result.response, error: nil)
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
        let serializer = manager.responseSerializer
        let handler = completionHandler
        manager.completionContext.deliver { [self] in
            var object: Any?
            var finalError = error
            if error == nil {
                do {
                    object = try serializer.responseObject(for: response, data: data)
                } catch {
                    finalError = error
                }
            }
            handler?(self, response, object, finalError)
            var userInfo: [String: Any] = [SessionNotificationKey.responseData: data]
            if let object { userInfo[SessionNotificationKey.serializedResponse] = object }
            if let finalError { userInfo[SessionNotificationKey.error] = finalError }
            manager.postDidComplete(task: self, userInfo: userInfo)
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
        configuration.uploadProgress = { [weak self] progress in self?.didSend(progress) }
        configuration.newBodyStream = { [weak self] _ in
            guard let self else { return nil }
            // Without the block, a multipart body can still make a fresh copy of itself.
            return manager.taskNeedNewBodyStream(self)
                ?? (originalRequest?.httpBodyStream as? MultipartBodyStream).flatMap { try? $0.makeReplacement() }
        }
        switch source {
        case .data(let data):
            configuration.body = .data(data)
        case .file(let url):
            configuration.body = try? RequestBody.file(url)
            if configuration.body == nil {
                configuration.body = RequestBody(source: .inputStream { throw Self.unreadable(url) }, length: nil)
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
