import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Sends one attempt of a job. By default (``QueueConfiguration/performer`` `nil`) a ``RequestQueue`` sends it through
/// its session and reads the response body into memory; a performer of your own takes the body elsewhere:
/// `courier batch --queue` streams each body to its file, continuing the part an earlier attempt left.
///
/// The queue decides what the attempt means from what this returns, as it does for its own: a status below 400
/// succeeds; any other status, or a thrown error, goes to ``QueueConfiguration/retryPolicy`` with the attempt's
/// number, and is retried or dead-lettered. A performer is called from many tasks at once (one per job in flight); a
/// worker that is stopping cancels the calling task, and the job goes back to the queue.
public protocol JobPerformer: Sendable {
    /// Sends `request` once: the job's stored request, its body in `body` (a file of the store's, for a long one).
    /// - Parameters:
    ///   - request: The request, with its `Idempotency-Key`.
    ///   - body: The request's body.
    ///   - job: The job, its ``QueuedJob/attempts`` counting this attempt.
    /// - Returns: The response, and the body bytes to keep in the job's outcome (the queue keeps at most
    ///   ``QueueConfiguration/maximumStoredResponseBody`` of them).
    /// - Throws: Why no response came, or why one that came is not the answer (a body that failed a check).
    func perform(_ request: URLRequest, body: JobBody, job: QueuedJob) async throws -> JobResponse
}

/// What one attempt of a job received.
public struct JobResponse: Sendable {
    /// The response's head.
    public var response: HTTPURLResponse
    /// The body bytes to keep in the outcome.
    public var body: Data
    /// The body's whole length in bytes (it may have gone elsewhere than ``body``).
    public var bodyByteCount: Int

    /// A response; `bodyByteCount` defaults to `body`'s length.
    public init(response: HTTPURLResponse, body: Data, bodyByteCount: Int? = nil) {
        self.response = response
        self.body = body
        self.bodyByteCount = bodyByteCount ?? body.count
    }
}
