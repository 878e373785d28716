import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// How tasks reach the delegate blocks: each call goes to the delegate queue, in the order the
/// task makes it.
extension URLSessionManager {
    func taskWillPerformHTTPRedirection(_ task: SessionTask, response: HTTPURLResponse, proposed: URLRequest) async -> URLRequest? {
        guard let block = blocks.withLock({ $0.taskWillPerformHTTPRedirection }) else { return proposed }
        return await onDelegateQueue { [self] in block(self, task, response, proposed) }
    }

    func taskDidReceiveChallenge(_ task: SessionTask, _ challenge: AuthenticationChallenge) async -> AuthenticationDisposition {
        let (taskBlock, sessionBlock) = blocks.withLock { ($0.taskDidReceiveChallenge, $0.sessionDidReceiveChallenge) }
        if let taskBlock {
            return await onDelegateQueue { [self] in taskBlock(self, task, challenge) }
        }
        if let sessionBlock {
            return await onDelegateQueue { [self] in sessionBlock(self, challenge) }
        }
        return .performDefaultHandling
    }

    /// Counts the retry on the task, posts ``Foundation/NSNotification/Name/courierTaskWillRetry`` and calls the
    /// will-retry block (on the delegate queue), before the retry's delay is waited.
    func taskWillRetry(_ task: SessionTask, _ event: RetryEvent) async {
        task.recordRetry()
        task.postNotification(.courierTaskWillRetry, userInfo: [
            SessionNotificationKey.retryDelay: event.delay,
            SessionNotificationKey.retryNumber: event.retryNumber,
            SessionNotificationKey.error: event.error,
        ])
        guard let block = blocks.withLock({ $0.taskWillRetry }) else { return }
        await onDelegateQueue { [self] in block(self, task, event) }
    }

    func taskNeedNewBodyStream(_ task: SessionTask) -> InputStream? {
        guard let block = blocks.withLock({ $0.taskNeedNewBodyStream }) else { return nil }
        return onDelegateQueueNow { block(self, task) }
    }

    func taskDidSendBodyData(_ task: SessionTask, _ progress: TransferProgress) {
        guard let block = blocks.withLock({ $0.taskDidSendBodyData }) else { return }
        delegateQueue.async { [self] in
            block(self, task, progress.bytesThisTime, progress.totalBytes, progress.totalBytesExpected)
        }
    }

    func dataTaskDidReceiveResponse(_ task: DataTask, _ response: HTTPURLResponse) async -> ResponseDisposition {
        guard let block = blocks.withLock({ $0.dataTaskDidReceiveResponse }) else { return .allow }
        return await onDelegateQueue { [self] in block(self, task, response) }
    }

    func dataTaskDidBecomeDownloadTask(_ task: DataTask, _ download: DownloadTask) async {
        guard let block = blocks.withLock({ $0.dataTaskDidBecomeDownloadTask }) else { return }
        await onDelegateQueue { [self] in block(self, task, download) }
    }

    func dataTaskDidReceiveData(_ task: DataTask, _ data: Data) {
        guard let block = blocks.withLock({ $0.dataTaskDidReceiveData }) else { return }
        delegateQueue.async { [self] in block(self, task, data) }
    }

    /// The will-cache block's answer to a response the cache stage is about to store (on the delegate queue), or the
    /// proposed response when no block is set.
    func dataTaskWillCacheResponse(_ task: DataTask, proposed: CachedURLResponse) async -> CachedURLResponse? {
        guard let block = blocks.withLock({ $0.dataTaskWillCacheResponse }) else { return proposed }
        return await onDelegateQueue { [self] in block(self, task, proposed) }
    }

    /// The did-finish-downloading block, then the task's destination: where the file goes, or
    /// `nil` when nobody wants it.
    func downloadTaskDidFinishDownloading(_ task: DownloadTask, location: URL, destination: DownloadTask.Destination?) async -> URL? {
        let block = blocks.withLock { $0.downloadTaskDidFinishDownloading }
        guard block != nil || destination != nil else { return nil }
        return await onDelegateQueue { [self] in
            if let chosen = block?(self, task, location) { return chosen }
            return destination?(location, task.response)
        }
    }

    func downloadTaskDidWriteData(_ task: DownloadTask, _ progress: TransferProgress) {
        guard let block = blocks.withLock({ $0.downloadTaskDidWriteData }) else { return }
        delegateQueue.async { [self] in
            block(self, task, progress.bytesThisTime, progress.totalBytes, progress.totalBytesExpected)
        }
    }

    func downloadTaskDidResume(_ task: DownloadTask, offset: Int64, expectedTotalBytes: Int64) {
        guard let block = blocks.withLock({ $0.downloadTaskDidResume }) else { return }
        delegateQueue.async { [self] in block(self, task, offset, expectedTotalBytes) }
    }
}
