import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What a session task's exchange tells and asks, routed as URLSession routes its delegate calls: to the task (its
/// response, progress and body) and to the manager's blocks, by the kind of task. It holds the task weakly, as the
/// task's driver keeps the exchange after it ends; a task that is gone gets each method's default.
struct SessionTaskHooks: ExchangeHooks {
    weak var task: SessionTask?
    /// Whether the manager has a challenge block; without one the exchange's default handling is what the block would
    /// do, and every HTTPS connection is spared the server-trust consultation.
    let answersChallenges: Bool

    /// An upload task can make its body again (the manager's block, or a multipart form's copy of itself).
    var suppliesBodyStreams: Bool { task is UploadTask }

    func answer(_ challenge: AuthenticationChallenge) async -> AuthenticationDisposition {
        guard let task else { return .performDefaultHandling }
        return await task.manager.taskDidReceiveChallenge(task, challenge)
    }

    func willRedirect(_ proposed: URLRequest, after response: HTTPURLResponse) async -> URLRequest? {
        guard let task else { return proposed }
        return await task.manager.taskWillPerformHTTPRedirection(task, response: response, proposed: proposed)
    }

    func willCache(_ proposed: CachedURLResponse) async -> CachedURLResponse? {
        guard let task = task as? DataTask else { return proposed }
        return await task.manager.dataTaskWillCacheResponse(task, proposed: proposed)
    }

    func newBodyStream(for request: URLRequest) -> InputStream? {
        guard let task = task as? UploadTask else { return nil }
        // Without the block, a multipart body can still make a fresh copy of itself.
        return task.manager.taskNeedNewBodyStream(task)
            ?? (task.originalRequest?.httpBodyStream as? MultipartBodyStream).flatMap { try? $0.makeReplacement() }
    }

    func willRetry(_ event: RetryEvent) async {
        guard let task else { return }
        await task.manager.taskWillRetry(task, event)
    }

    func didSendBody(_ progress: TransferProgress) {
        // Only an upload task reports the request body, as its progress.
        guard let task = task as? UploadTask else { return }
        task.didSend(progress)
    }

    func didReceive(response: HTTPURLResponse) {
        task?.didReceive(response: response)
    }

    func didDecideResumption(_ outcome: ResumptionOutcome, progress: TransferProgress) {
        guard let task = task as? DownloadTask else { return }
        switch outcome {
        case .continued, .restarted:
            // The progress starts from the kept bytes: the offset, or 0 when the body starts over.
            task.manager.downloadTaskDidResume(task, offset: progress.totalBytes, expectedTotalBytes: progress.totalBytesExpected)
        case .alreadyComplete, .mismatch, .unrelated:
            break
        }
    }

    func decideBody(of response: HTTPURLResponse, resumption: ResumptionOutcome?) async -> BodyDecision {
        guard let task = task as? DataTask else { return .receive }
        return await task.decideBody(of: response)
    }

    func didReceive(data: Data) {
        guard let task = task as? DataTask else { return }
        task.manager.dataTaskDidReceiveData(task, data)
    }

    func didReceiveBody(_ progress: TransferProgress) {
        guard let task else { return }
        task.didReceive(progress)
        if let download = task as? DownloadTask { task.manager.downloadTaskDidWriteData(download, progress) }
    }
}
