import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The blocks a ``URLSessionManager`` calls in place of URLSession's delegate methods.
struct DelegateBlocks: Sendable {
    var sessionDidBecomeInvalid: URLSessionManager.SessionDidBecomeInvalidBlock?
    var sessionDidReceiveChallenge: URLSessionManager.SessionDidReceiveChallengeBlock?
    var taskNeedNewBodyStream: URLSessionManager.TaskNeedNewBodyStreamBlock?
    var taskWillPerformHTTPRedirection: URLSessionManager.TaskWillPerformHTTPRedirectionBlock?
    var taskDidReceiveChallenge: URLSessionManager.TaskDidReceiveChallengeBlock?
    var taskWillRetry: URLSessionManager.TaskWillRetryBlock?
    var taskDidSendBodyData: URLSessionManager.TaskDidSendBodyDataBlock?
    var taskDidComplete: URLSessionManager.TaskDidCompleteBlock?
    var taskDidFinishCollectingMetrics: URLSessionManager.TaskDidFinishCollectingMetricsBlock?
    var dataTaskDidReceiveResponse: URLSessionManager.DataTaskDidReceiveResponseBlock?
    var dataTaskDidBecomeDownloadTask: URLSessionManager.DataTaskDidBecomeDownloadTaskBlock?
    var dataTaskDidReceiveData: URLSessionManager.DataTaskDidReceiveDataBlock?
    var dataTaskWillCacheResponse: URLSessionManager.DataTaskWillCacheResponseBlock?
    var downloadTaskDidFinishDownloading: URLSessionManager.DownloadTaskDidFinishDownloadingBlock?
    var downloadTaskDidWriteData: URLSessionManager.DownloadTaskDidWriteDataBlock?
    var downloadTaskDidResume: URLSessionManager.DownloadTaskDidResumeBlock?

    /// Whether a block is set that the delegate queue runs asynchronously, once per transfer event
    /// (so a task's completion must queue behind them).
    var queuesTransferEvents: Bool {
        taskDidSendBodyData != nil || dataTaskDidReceiveData != nil
            || downloadTaskDidWriteData != nil || downloadTaskDidResume != nil
    }
}

extension URLSessionManager {
    /// The session ended: `(manager, error)`; the error is `nil` for an explicit invalidation.
    public typealias SessionDidBecomeInvalidBlock = @Sendable (URLSessionManager, (any Error)?) -> Void
    /// A challenge for any task that has no task-level answer: `(manager, challenge)`.
    public typealias SessionDidReceiveChallengeBlock = @Sendable (URLSessionManager, AuthenticationChallenge) -> AuthenticationDisposition
    /// A fresh body stream for a streamed upload (at its start, and again for a 307/308 redirect or
    /// an authentication retry): `(manager, task)`.
    public typealias TaskNeedNewBodyStreamBlock = @Sendable (URLSessionManager, SessionTask) -> InputStream?
    /// One redirect hop: `(manager, task, redirect response, proposed request)`; return the request
    /// to send, or `nil` to stop and complete with the 3xx response.
    public typealias TaskWillPerformHTTPRedirectionBlock = @Sendable (URLSessionManager, SessionTask, HTTPURLResponse, URLRequest) -> URLRequest?
    /// An authentication challenge (401 with `WWW-Authenticate`, or server trust) of one task: `(manager, task, challenge)`.
    public typealias TaskDidReceiveChallengeBlock = @Sendable (URLSessionManager, SessionTask, AuthenticationChallenge) -> AuthenticationDisposition
    /// A retry an interceptor decided, before its delay is waited: `(manager, task, event)`.
    public typealias TaskWillRetryBlock = @Sendable (URLSessionManager, SessionTask, RetryEvent) -> Void
    /// Request body progress: `(manager, task, bytesSent, totalBytesSent, totalBytesExpectedToSend)`.
    public typealias TaskDidSendBodyDataBlock = @Sendable (URLSessionManager, SessionTask, Int64, Int64, Int64) -> Void
    /// The task ended: `(manager, task, error)`.
    public typealias TaskDidCompleteBlock = @Sendable (URLSessionManager, SessionTask, (any Error)?) -> Void
    /// The task's timings, just before the did-complete block: `(manager, task, metrics)`.
    public typealias TaskDidFinishCollectingMetricsBlock = @Sendable (URLSessionManager, SessionTask, SessionTaskMetrics) -> Void
    /// A data task's final response head: `(manager, task, response)`; returns what to do next.
    public typealias DataTaskDidReceiveResponseBlock = @Sendable (URLSessionManager, DataTask, URLResponse) -> ResponseDisposition
    /// A data task became a download task: `(manager, dataTask, downloadTask)`.
    public typealias DataTaskDidBecomeDownloadTaskBlock = @Sendable (URLSessionManager, DataTask, DownloadTask) -> Void
    /// A chunk of a data task's body: `(manager, task, data)`.
    public typealias DataTaskDidReceiveDataBlock = @Sendable (URLSessionManager, DataTask, Data) -> Void
    /// A data task's response is about to be stored in ``SessionConfiguration/urlCache`` (it may be stored by
    /// RFC 9111, and its body was read to the end): `(manager, task, proposed)`; return the response to store (the
    /// same or another), or `nil` to store nothing. The proposed response is as received (its body still compressed
    /// when it came so).
    public typealias DataTaskWillCacheResponseBlock = @Sendable (URLSessionManager, DataTask, CachedURLResponse) -> CachedURLResponse?
    /// A download finished at a temporary location: `(manager, task, location)`; return where to
    /// move the file, or `nil` to leave it to the task's destination block.
    public typealias DownloadTaskDidFinishDownloadingBlock = @Sendable (URLSessionManager, DownloadTask, URL) -> URL?
    /// Download progress: `(manager, task, bytesWritten, totalBytesWritten, totalBytesExpectedToWrite)`.
    public typealias DownloadTaskDidWriteDataBlock = @Sendable (URLSessionManager, DownloadTask, Int64, Int64, Int64) -> Void
    /// A download from resume data got its answer: `(manager, task, fileOffset, expectedTotalBytes)`;
    /// the offset is 0 when the server restarted the body.
    public typealias DownloadTaskDidResumeBlock = @Sendable (URLSessionManager, DownloadTask, Int64, Int64) -> Void

    /// Sets the block called once the session was invalidated and its last task completed.
    public func setSessionDidBecomeInvalidBlock(_ block: SessionDidBecomeInvalidBlock?) {
        blocks.withLock { $0.sessionDidBecomeInvalid = block }
    }

    /// Sets the block answering authentication challenges of tasks the task-level block does not
    /// handle: 401s, and server trust on each new HTTPS connection, during the TLS handshake, with the security
    /// policy's verdict in ``AuthenticationChallenge/serverTrust`` (the default: `.performDefaultHandling` applies
    /// it). A server-trust answer must come within ``SessionConfiguration/connectTimeout`` or the connection fails
    /// with `URLError(.timedOut)`. Set the blocks before creating tasks: a task made without any challenge block
    /// asks none.
    public func setSessionDidReceiveAuthenticationChallengeBlock(_ block: SessionDidReceiveChallengeBlock?) {
        blocks.withLock { $0.sessionDidReceiveChallenge = block }
    }

    /// Sets the block that supplies streamed upload bodies. Default: the request's own
    /// `httpBodyStream` for the first send, and no retry (`URLError(.requestBodyStreamExhausted)`).
    public func setTaskNeedNewBodyStreamBlock(_ block: TaskNeedNewBodyStreamBlock?) {
        blocks.withLock { $0.taskNeedNewBodyStream = block }
    }

    /// Sets the block that sees every redirect hop. Default: follow.
    public func setTaskWillPerformHTTPRedirectionBlock(_ block: TaskWillPerformHTTPRedirectionBlock?) {
        blocks.withLock { $0.taskWillPerformHTTPRedirection = block }
    }

    /// Sets the block answering each task's authentication challenges: 401s, and server trust when a new HTTPS
    /// connection is made while the task waits for one (see
    /// ``setSessionDidReceiveAuthenticationChallengeBlock(_:)``). Default: the session block, else the credential
    /// storage and the security policy (`.performDefaultHandling`).
    public func setTaskDidReceiveAuthenticationChallengeBlock(_ block: TaskDidReceiveChallengeBlock?) {
        blocks.withLock { $0.taskDidReceiveChallenge = block }
    }

    /// Sets the block called before each retry of a task (see ``SessionConfiguration/interceptors``), with the
    /// retry's number, delay and the failure that caused it; the task's ``SessionTask/retryCount`` already counts
    /// it. Default none. Not an AFNetworking block (AFNetworking had no retries).
    public func setTaskWillRetryBlock(_ block: TaskWillRetryBlock?) {
        blocks.withLock { $0.taskWillRetry = block }
    }

    /// Sets the upload progress block.
    public func setTaskDidSendBodyDataBlock(_ block: TaskDidSendBodyDataBlock?) {
        blocks.withLock { $0.taskDidSendBodyData = block }
    }

    /// Sets the block called when any task ends.
    public func setTaskDidCompleteBlock(_ block: TaskDidCompleteBlock?) {
        blocks.withLock { $0.taskDidComplete = block }
    }

    /// Sets the block that receives each task's ``SessionTaskMetrics``.
    public func setTaskDidFinishCollectingMetricsBlock(_ block: TaskDidFinishCollectingMetricsBlock?) {
        blocks.withLock { $0.taskDidFinishCollectingMetrics = block }
    }

    /// Sets the block deciding what a data task does with its response. Default: `.allow`.
    public func setDataTaskDidReceiveResponseBlock(_ block: DataTaskDidReceiveResponseBlock?) {
        blocks.withLock { $0.dataTaskDidReceiveResponse = block }
    }

    /// Sets the block told when a data task became a download task.
    public func setDataTaskDidBecomeDownloadTaskBlock(_ block: DataTaskDidBecomeDownloadTaskBlock?) {
        blocks.withLock { $0.dataTaskDidBecomeDownloadTask = block }
    }

    /// Sets the block receiving each chunk of data-task bodies.
    public func setDataTaskDidReceiveDataBlock(_ block: DataTaskDidReceiveDataBlock?) {
        blocks.withLock { $0.dataTaskDidReceiveData = block }
    }

    /// Sets the block deciding what is cached. Default: the proposed response is stored (when the session has a
    /// ``SessionConfiguration/urlCache``).
    public func setDataTaskWillCacheResponseBlock(_ block: DataTaskWillCacheResponseBlock?) {
        blocks.withLock { $0.dataTaskWillCacheResponse = block }
    }

    /// Sets the block choosing where finished downloads go (it wins over a task's destination).
    public func setDownloadTaskDidFinishDownloadingBlock(_ block: DownloadTaskDidFinishDownloadingBlock?) {
        blocks.withLock { $0.downloadTaskDidFinishDownloading = block }
    }

    /// Sets the download progress block.
    public func setDownloadTaskDidWriteDataBlock(_ block: DownloadTaskDidWriteDataBlock?) {
        blocks.withLock { $0.downloadTaskDidWriteData = block }
    }

    /// Sets the block told where a download from resume data continues.
    public func setDownloadTaskDidResumeBlock(_ block: DownloadTaskDidResumeBlock?) {
        blocks.withLock { $0.downloadTaskDidResume = block }
    }
}
