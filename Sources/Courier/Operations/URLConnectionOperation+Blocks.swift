import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension URLConnectionOperation {
    /// Sets the block called as the request body is sent, on the main queue, with the bytes sent
    /// since the last call, the total sent and the total expected (-1 when unknown). Default none.
    public func setUploadProgressBlock(_ block: (@Sendable (_ bytesWritten: Int, _ totalBytesWritten: Int64, _ totalBytesExpectedToWrite: Int64) -> Void)?) {
        storage.withLock { $0.blocks.uploadProgress = block }
    }

    /// Sets the block called as the response body arrives, on the main queue, with the bytes read
    /// since the last call, the total read (including bytes kept from before a pause) and the
    /// total expected (-1 when unknown). Default none.
    public func setDownloadProgressBlock(_ block: (@Sendable (_ bytesRead: Int, _ totalBytesRead: Int64, _ totalBytesExpectedToRead: Int64) -> Void)?) {
        storage.withLock { $0.blocks.downloadProgress = block }
    }

    /// Sets the block that answers authentication challenges: HTTP Basic and Digest, and server trust on each new
    /// HTTPS connection made while the operation waits for one, during the handshake, with ``securityPolicy``'s
    /// verdict in ``AuthenticationChallenge/serverTrust`` (it must answer within the transport's connect timeout).
    /// Default none: the ``credential``, then the credential store when ``shouldUseCredentialStorage``, and the
    /// policy's verdict.
    public func setWillSendRequestForAuthenticationChallengeBlock(_ block: (@Sendable (AuthenticationChallenge) async -> AuthenticationDisposition)?) {
        storage.withLock { $0.blocks.authenticationChallenge = block }
    }

    /// Sets the block called for every redirect hop with the proposed request and the redirect
    /// response; it returns the request to send, or `nil` to stop and deliver the redirect
    /// response itself. Default none: redirects are followed.
    public func setRedirectResponseBlock(_ block: (@Sendable (_ request: URLRequest, _ redirectResponse: URLResponse?) -> URLRequest?)?) {
        storage.withLock { $0.blocks.redirectResponse = block }
    }

    /// Sets the block that sees each response about to be stored in ``cache`` (one RFC 9111 allows storing, read to
    /// the end) and returns what to store: the same, another, or `nil` for nothing. Runs on the operation's transfer
    /// task. Default none: the response is stored as received.
    public func setCacheResponseBlock(_ block: (@Sendable (CachedURLResponse) -> CachedURLResponse?)?) {
        storage.withLock { $0.blocks.cacheResponse = block }
    }

    /// Sets the block called before each retry of the operation's request (see ``interceptors``), with the retry's
    /// number, delay and the failure that caused it, on the operation's transfer task before the delay is waited;
    /// ``retryCount`` already counts it. Default none. Not an AFNetworking block (AFNetworking had no retries).
    public func setWillRetryBlock(_ block: (@Sendable (RetryEvent) -> Void)?) {
        storage.withLock { $0.blocks.willRetry = block }
    }

    /// Holds a graceful-shutdown lease while the operation is unfinished (Linux's meaning of
    /// AFNetworking's background task): when the process receives SIGTERM or SIGINT, the
    /// operation gets ``GracefulShutdown/gracePeriod`` (default 5 s) to finish; if it has not,
    /// `handler` runs on the main queue and the operation is cancelled. When every leased
    /// operation has finished, the process stops as the signal asked. Calling it again replaces
    /// nothing: the first lease stays. Calling it on a finished operation does nothing.
    public func setShouldExecuteAsBackgroundTask(expirationHandler handler: (@Sendable () -> Void)?) {
        guard !isFinished, storage.withLock({ $0.lease == nil }) else { return }
        let lease = GracefulShutdown.shared.acquire(handler: handler) { [weak self] in self?.cancel() }
        let kept = storage.withLock { storage in
            guard storage.lease == nil, storage.machine.state != .finished else { return false }
            storage.lease = lease
            return true
        }
        if !kept { lease.release() }
    }

    /// What was handed to ``cache`` for the last response: the cache response block's answer when it ran, `nil` when
    /// nothing was stored.
    public var cachedResponse: CachedURLResponse? { storage.withLock { $0.cachedResponse } }

    /// The cache response block's answer to a response about to be stored (the proposed one without a block).
    func willCache(_ proposed: CachedURLResponse) -> CachedURLResponse? {
        let block = storage.withLock { $0.blocks.cacheResponse }
        let chosen = block.map { $0(proposed) } ?? proposed
        storage.withLock { $0.cachedResponse = chosen }
        return chosen
    }
}
