import Foundation
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A task that writes the response body to a file, like `URLSessionDownloadTask`.
///
/// The body goes to a partial file in the temporary directory, with constant memory. When it is
/// complete, the destination block (or the manager's did-finish-downloading block) names where it
/// goes and the file is moved there; a failed move completes the task with the move's error and
/// leaves the file where it was. ``cancel(byProducingResumeData:)`` keeps the partial file and
/// produces ``DownloadResumeData``; so does a transfer that fails midway (the completion's
/// `URLError` carries it: ``resumeData(from:)``).
public final class DownloadTask: SessionTask, @unchecked Sendable {
    /// Chooses where the finished file goes: called with the temporary location and the response.
    public typealias Destination = @Sendable (_ temporaryURL: URL, _ response: URLResponse?) -> URL
    /// The download completion handler: the response, the file's final location (`nil` on
    /// failure), and the error.
    public typealias CompletionHandler = @Sendable (URLResponse?, URL?, (any Error)?) -> Void

    /// How the task was created.
    enum Kind: Sendable {
        case request(URLRequest)
        case resumeData(DownloadResumeData)
        case invalidResumeData(any Error)
    }

    private let kind: Kind
    private let destination: Destination?
    private let completionHandler: CompletionHandler?
    private let partialFile: URL
    private let local = Mutex(Local())

    private struct Local {
        var resumeDataHandler: (@Sendable (Data?) -> Void)?
        var resumption: DownloadResumption?
        var location: URL?
    }

    init(identifier: Int, kind: Kind, manager: URLSessionManager,
         destination: Destination?, completionHandler: CompletionHandler?) {
        self.kind = kind
        self.destination = destination
        self.completionHandler = completionHandler
        var request: URLRequest?
        switch kind {
        case .request(let original):
            request = original
            partialFile = Self.newPartialFile()
        case .resumeData(let resumeData):
            request = resumeData.request
            partialFile = resumeData.partialFile
        case .invalidResumeData:
            partialFile = Self.newPartialFile()
        }
        super.init(identifier: identifier, request: request, manager: manager)
    }

    /// Where partial downloads are kept: `<temporary directory>/CourierDownloads`.
    public static var partialDownloadsDirectory: URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("CourierDownloads", isDirectory: true)
    }

    private static func newPartialFile() -> URL {
        try? FileManager.default.createDirectory(at: partialDownloadsDirectory, withIntermediateDirectories: true)
        return partialDownloadsDirectory.appendingPathComponent("\(UUID().uuidString).download")
    }

    /// Cancels the task and, once it has stopped, calls `completionHandler` (on the manager's
    /// delegate queue, before the did-complete block) with resume data, or `nil` when nothing
    /// was received that could be continued (no response yet, or an error status). The partial file
    /// stays on disk for the resumed task; pass the data to
    /// ``URLSessionManager/downloadTask(withResumeData:progress:destination:completionHandler:)``,
    /// in this process or after a restart.
    public func cancel(byProducingResumeData completionHandler: @escaping @Sendable (Data?) -> Void) {
        local.withLock { $0.resumeDataHandler = completionHandler }
        cancel()
    }

    override func configure(_ configuration: inout ExchangeConfiguration) {
        var offset: Int64 = 0
        if case .resumeData(let resumeData) = kind {
            let resumption = resumeData.verifiedResumption()
            local.withLock { $0.resumption = resumption }
            configuration.resumption = resumption
            offset = resumption.offset
        }
        configuration.sink = .file(partialFile, offset: offset)
    }

    override func run(_ exchange: Exchange) async {
        if case .invalidResumeData(let error) = kind {
            await finish(response: nil, error: error)
            return
        }
        do {
            let result = try await exchange.result()
            if result.resumption == .unrelated {
                // The kept bytes stay untouched; the error body is the downloaded file.
                let file = Self.newPartialFile()
                try (result.data ?? Data()).write(to: file)
                await finishDownload(at: file, response: result.response)
            } else {
                await finishDownload(at: partialFile, response: result.response)
            }
        } catch {
            await finish(response: exchange.response, error: error)
        }
    }

    /// Continues the body of a data task that became a download task.
    func adopt(_ result: ExchangeResult, from dataTask: DataTask) async {
        forceRunning()
        do {
            var writer = try await FileBodyWriter(url: partialFile, offset: 0)
            var total: Int64 = 0
            let expected = result.response.expectedContentLength
            do {
                if let body = result.body {
                    for try await chunk in body {
                        try await writer.write(chunk)
                        total += Int64(chunk.count)
                        let progress = TransferProgress(bytesThisTime: Int64(chunk.count), totalBytes: total, totalBytesExpected: expected)
                        didReceive(progress)
                        manager.downloadTaskDidWriteData(self, progress)
                    }
                }
                _ = try await writer.finish()
            } catch {
                await writer.abandon()
                throw error
            }
            await finishDownload(at: partialFile, response: result.response)
        } catch {
            await finish(response: result.response, error: error)
        }
    }

    /// The did-finish-downloading block and the destination, then the move, then completion.
    private func finishDownload(at location: URL, response: HTTPURLResponse) async {
        didReceive(response: response)
        let target = await manager.downloadTaskDidFinishDownloading(self, location: location, destination: destination)
        guard let target else {
            // Nobody wanted the file: as URLSession, it is removed once the delegate returned.
            try? FileManager.default.removeItem(at: location)
            await finish(response: response, error: nil)
            return
        }
        do {
            try FileManager.default.moveItem(at: location, to: target)
            local.withLock { $0.location = target }
            await finish(response: response, error: nil)
        } catch {
            local.withLock { $0.location = location }
            await finish(response: response, error: URLError(.cannotMoveFile, userInfo: [
                NSURLErrorFailingURLErrorKey: response.url as Any,
                NSUnderlyingErrorKey: error,
                "CourierDownloadedFileURL": location,
                NSLocalizedDescriptionKey: "Cannot move the download from \(location.path) to \(target.path): \(error). The file was kept at \(location.path).",
            ]))
        }
    }

    /// The final location of the file, once completed: the destination, or the temporary file
    /// when the move failed; `nil` otherwise.
    public var location: URL? { local.withLock { $0.location } }

    override func finish(response: HTTPURLResponse?, error: (any Error)?) async {
        var error = error
        if let handler = local.withLock({ state in defer { state.resumeDataHandler = nil }; return state.resumeDataHandler }) {
            let data = resumeData(response: response ?? (self.response as? HTTPURLResponse))
            if data == nil { removePartialFile() }
            await manager.onDelegateQueue { handler(data) }
        } else if let failure = error, location == nil {
            if let resumable = resumableFailure(failure, response: response ?? (self.response as? HTTPURLResponse)) {
                error = resumable
            } else {
                removePartialFile()
            }
        }
        await super.finish(response: response, error: error)
    }

    /// A transfer that failed after part of a successful body was written (the connection was
    /// lost, the server stopped sending, a timeout) keeps its partial file: the task completes
    /// with the `URLError` carrying resume data under `NSURLSessionDownloadTaskResumeData`
    /// (`URLSessionDownloadTaskResumeData` on Linux) in its user info (read it with
    /// ``resumeData(from:)``), as URLSession does. `nil` for cancellation, other errors, error
    /// statuses or an empty partial file.
    private func resumableFailure(_ error: any Error, response: HTTPURLResponse?) -> URLError? {
        guard let failure = error as? URLError, failure.code != .cancelled,
              let size = FileStatus.size(atPath: partialFile.path),
              size > 0, let data = resumeData(response: response) else { return nil }
        var userInfo = failure.userInfo
        userInfo[Self.resumeDataKey] = data
        return URLError(failure.code, userInfo: userInfo)
    }

    /// The resume data a failed download's error carries (see ``DownloadTask``), or `nil`.
    /// Portable where `URLError.downloadTaskResumeData` is missing (swift-corelibs-foundation).
    public static func resumeData(from error: any Error) -> Data? {
        (error as? URLError)?.userInfo[resumeDataKey] as? Data
    }

    /// The user-info key of resume data in a download's error.
    #if canImport(FoundationNetworking)
    static let resumeDataKey = URLSessionDownloadTaskResumeData
    #else
    static let resumeDataKey = NSURLSessionDownloadTaskResumeData
    #endif

    private func removePartialFile() {
        try? FileManager.default.removeItem(at: partialFile)
    }

    /// Resume data for the bytes now on disk, or `nil` when there is nothing to continue.
    private func resumeData(response: HTTPURLResponse?) -> Data? {
        if case .resumeData(let previous) = kind, response == nil {
            // Cancelled before it sent anything: the previous resume data is still good.
            return try? previous.encoded()
        }
        guard let response, (200..<300).contains(response.statusCode),
              let request = currentRequest ?? originalRequest,
              let size = FileStatus.size(atPath: partialFile.path)
        else { return nil }
        var resumption = DownloadResumption(offset: size, response: response)
        if response.statusCode == 206, let previous = local.withLock({ $0.resumption }) {
            if previous.validator != nil {
                // The 206 continued the previous part, so it carried the same validator; keep what was recorded.
                resumption.entityTag = previous.entityTag
                resumption.lastModified = previous.lastModified
            }
            // Continued without a validator, the kept bytes stay unproven: later parts are asked for the same way
            // (with the 206's validator, when it had one, guarding them from here on).
            resumption.continuesWithoutValidator = previous.continuesWithoutValidator
            resumption.completeLength = resumption.completeLength ?? previous.completeLength
        }
        return try? DownloadResumeData(request: request, partialFile: partialFile, resumption: resumption).encoded()
    }

    override func deliverCompletion(error: (any Error)?) {
        let response = self.response
        let location = self.location
        let handler = completionHandler
        let posts = postsNotifications
        // Nothing to run on the completion queue (an async caller, notifications off): no hop to it.
        guard handler != nil || posts else { return }
        manager.completionContext.deliver { [self] in
            handler?(response, error == nil ? location : nil, error)
            guard posts else { return }
            var userInfo: [String: Any] = [:]
            if let location { userInfo[SessionNotificationKey.downloadedFile] = location }
            if let error { userInfo[SessionNotificationKey.error] = error }
            CourierNotifier.postNow(.courierTaskDidComplete, object: self, userInfo: userInfo)
        }
    }
}
