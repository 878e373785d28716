import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What one attempt's exchange of a ``URLConnectionOperation`` tells and asks: progress to the driver (for
/// ``URLConnectionOperation/progressUpdates(_:)``) and to the operation's blocks on the main queue, as AFNetworking
/// calls them; redirects, challenges and the cache through the blocks, on the exchange's task; the response recorded
/// while the attempt still counts. It holds the operation weakly (its driver keeps the exchange after it ends) and the
/// blocks as they were when the attempt started.
struct OperationExchangeHooks: ExchangeHooks {
    weak var operation: URLConnectionOperation?
    /// The attempt this exchange runs: a later one (after a pause or a retry) makes this one's events stale.
    let attempt: Int
    let blocks: OperationBlocks
    /// The output stream the body goes to, when it goes to one: bytes written there cannot be taken back.
    let stream: OutputStreamTarget?
    /// The request whose multipart body makes a fresh copy of itself for a redirect, a challenge or a retry.
    let multipartRequest: URLRequest?

    var answersChallenges: Bool { blocks.authenticationChallenge != nil }
    var suppliesBodyStreams: Bool { multipartRequest != nil }

    func answer(_ challenge: AuthenticationChallenge) async -> AuthenticationDisposition {
        await blocks.authenticationChallenge?(challenge) ?? .performDefaultHandling
    }

    func willRedirect(_ proposed: URLRequest, after response: HTTPURLResponse) async -> URLRequest? {
        guard let redirect = blocks.redirectResponse else { return proposed }
        return redirect(proposed, response)
    }

    func willCache(_ proposed: CachedURLResponse) async -> CachedURLResponse? {
        operation?.willCache(proposed) ?? proposed
    }

    func newBodyStream(for request: URLRequest) -> InputStream? {
        (multipartRequest?.httpBodyStream as? MultipartBodyStream).flatMap { try? $0.makeReplacement() }
    }

    func willRetry(_ event: RetryEvent) async {
        guard let driver = operation?.driver, driver.counts(attempt: attempt) else { return }
        driver.recordRetry()
        blocks.willRetry?(event)
    }

    func didSendBody(_ progress: TransferProgress) {
        operation?.driver.report(progress, .upload)
        guard let upload = blocks.uploadProgress else { return }
        DispatchQueue.main.async { upload(Int(progress.bytesThisTime), progress.totalBytes, progress.totalBytesExpected) }
    }

    func didReceiveBody(_ progress: TransferProgress) {
        operation?.driver.report(progress, .download)
        guard let download = blocks.downloadProgress else { return }
        DispatchQueue.main.async { download(Int(progress.bytesThisTime), progress.totalBytes, progress.totalBytesExpected) }
    }

    func didReceive(response: HTTPURLResponse) {
        guard let operation else { return }
        operation.storage.withLock { storage in
            if operation.driver.counts(attempt: attempt) { storage.response = response }
        }
    }

    func decideBody(of response: HTTPURLResponse, resumption: ResumptionOutcome?) async -> BodyDecision {
        guard let stream else { return .receive }
        switch resumption {
        case .continued?, .alreadyComplete?, .unrelated?:
            return .receive
        default:
            // Bytes written cannot be taken back: a fresh copy of the resource cannot follow them.
            let written = stream.bytesWritten
            return written > 0 ? .refuse(OperationError.outputCannotRestart(bytesWritten: written)) : .receive
        }
    }
}
