import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Making tasks. Every task starts suspended: call `resume()`.
extension URLSessionManager {
    /// A per-task progress block, called on the delegate queue with the task's `Progress`.
    public typealias ProgressBlock = @Sendable (Progress) -> Void

    /// A data task: the body is kept in memory and serialized by ``responseSerializer``.
    /// - Parameters:
    ///   - request: The request.
    ///   - uploadProgress: Called as the request body is sent. Default `nil`.
    ///   - downloadProgress: Called as the response body arrives. Default `nil`.
    ///   - completionHandler: Called on ``completionQueue`` with the response, the serialized
    ///     object and the error, or `nil`.
    public func dataTask(
        with request: URLRequest,
        uploadProgress: ProgressBlock? = nil,
        downloadProgress: ProgressBlock? = nil,
        completionHandler: DataTask.CompletionHandler?
    ) -> DataTask {
        dataTask(with: request, uploadProgress: uploadProgress, downloadProgress: downloadProgress,
                 completion: Self.adapt(completionHandler))
    }

    func dataTask(with request: URLRequest, uploadProgress: ProgressBlock?, downloadProgress: ProgressBlock?,
                  completion: DataTask.TaskCompletion?) -> DataTask {
        let task = DataTask(identifier: makeIdentifier(), request: request, manager: self, completionHandler: completion)
        return admit(task, upload: uploadProgress, download: downloadProgress)
    }

    /// An upload task sending the contents of `fileURL` (streamed from disk, constant memory).
    /// A missing file completes the task with `URLError(.fileDoesNotExist)`.
    public func uploadTask(
        with request: URLRequest,
        fromFile fileURL: URL,
        progress: ProgressBlock? = nil,
        completionHandler: DataTask.CompletionHandler?
    ) -> UploadTask {
        makeUploadTask(request, source: .file(fileURL), progress: progress, completionHandler: completionHandler)
    }

    /// An upload task sending `bodyData`.
    public func uploadTask(
        with request: URLRequest,
        from bodyData: Data,
        progress: ProgressBlock? = nil,
        completionHandler: DataTask.CompletionHandler?
    ) -> UploadTask {
        makeUploadTask(request, source: .data(bodyData), progress: progress, completionHandler: completionHandler)
    }

    /// An upload task whose body is a stream: the need-new-body-stream block supplies it (and a
    /// fresh one for each retry); without the block, the request's `httpBodyStream` is sent once.
    /// The request's `Content-Length`, when set, is the body's length.
    public func uploadTask(
        withStreamedRequest request: URLRequest,
        progress: ProgressBlock? = nil,
        completionHandler: DataTask.CompletionHandler?
    ) -> UploadTask {
        makeUploadTask(request, source: .streamed, progress: progress, completionHandler: completionHandler)
    }

    func uploadTask(withStreamedRequest request: URLRequest, completion: DataTask.TaskCompletion?) -> UploadTask {
        let task = UploadTask(identifier: makeIdentifier(), request: request, source: .streamed, manager: self,
                              completionHandler: completion)
        return admit(task, upload: nil, download: nil)
    }

    /// A download task: the body goes to a temporary file, then to where `destination` says.
    /// - Parameters:
    ///   - request: The request.
    ///   - progress: Called as the body is written. Default `nil`.
    ///   - destination: Chooses the final location from the temporary one and the response.
    ///     Default `nil`: the file is removed once the delegate blocks have seen it.
    ///   - completionHandler: Called on ``completionQueue`` with the response, the final
    ///     location and the error, or `nil`.
    public func downloadTask(
        with request: URLRequest,
        progress: ProgressBlock? = nil,
        destination: DownloadTask.Destination? = nil,
        completionHandler: DownloadTask.CompletionHandler?
    ) -> DownloadTask {
        let task = makeDownloadTask(kind: .request(request), progress: progress, destination: destination, completionHandler: completionHandler)
        return task
    }

    /// A download task continuing from resume data made by
    /// ``DownloadTask/cancel(byProducingResumeData:)`` (in this process or an earlier one). It asks
    /// for the rest with `Range` and `If-Range`; when the server cannot resume (no range support,
    /// or the resource changed) it downloads the whole body again. Data that is not Courier resume
    /// data completes the task with `URLError(.cannotDecodeRawData)`.
    public func downloadTask(
        withResumeData resumeData: Data,
        progress: ProgressBlock? = nil,
        destination: DownloadTask.Destination? = nil,
        completionHandler: DownloadTask.CompletionHandler?
    ) -> DownloadTask {
        let kind: DownloadTask.Kind
        do {
            kind = .resumeData(try DownloadResumeData(data: resumeData))
        } catch {
            kind = .invalidResumeData(error)
        }
        return makeDownloadTask(kind: kind, progress: progress, destination: destination, completionHandler: completionHandler)
    }

    func makeDownloadTask(kind: DownloadTask.Kind, progress: ProgressBlock?, destination: DownloadTask.Destination?,
                          completionHandler: DownloadTask.CompletionHandler?) -> DownloadTask {
        let task = DownloadTask(identifier: makeIdentifier(), kind: kind, manager: self,
                                destination: destination, completionHandler: completionHandler)
        return admit(task, upload: nil, download: progress)
    }

    private func makeUploadTask(_ request: URLRequest, source: UploadTask.Source, progress: ProgressBlock?,
                                completionHandler: DataTask.CompletionHandler?) -> UploadTask {
        let task = UploadTask(identifier: makeIdentifier(), request: request, source: source, manager: self,
                              completionHandler: Self.adapt(completionHandler))
        return admit(task, upload: progress, download: nil)
    }

    private static func adapt(_ handler: DataTask.CompletionHandler?) -> DataTask.TaskCompletion? {
        guard let handler else { return nil }
        return { @Sendable (_: DataTask, response: URLResponse?, object: Any?, error: (any Error)?) in
            handler(response, object, error)
        }
    }

    private func admit<Kind: SessionTask>(_ task: Kind, upload: ProgressBlock?, download: ProgressBlock?) -> Kind {
        task.setProgressBlocks(upload: upload, download: download)
        if !register(task) { task.reject() }
        return task
    }
}
