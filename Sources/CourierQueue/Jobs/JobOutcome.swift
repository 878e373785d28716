import Courier
import Foundation

/// What a job's last attempt ended with: the response (status, header fields, body) or the error, how many
/// attempts were made, and when. Kept with the job once it has succeeded or been dead-lettered, and after a failed
/// attempt that will be retried.
public struct JobOutcome: Codable, Sendable, Equatable {
    /// The response's status code, when a response arrived.
    public var statusCode: Int?
    /// The response's header fields.
    public var headers: [String: String]
    /// The response body, up to ``QueueConfiguration/maximumStoredResponseBody`` bytes.
    public var body: Data?
    /// The body's full length, which is more than `body` holds when it was cut.
    public var bodyByteCount: Int
    /// The error of an attempt that got no response, or why the job was dead-lettered.
    public var error: OperationArchive.ErrorRecord?
    /// The attempts made so far.
    public var attempts: Int
    /// When the last attempt started.
    public var startedAt: Date?
    /// When it ended.
    public var finishedAt: Date

    /// An outcome; every field as its property says.
    public init(
        statusCode: Int? = nil,
        headers: [String: String] = [:],
        body: Data? = nil,
        bodyByteCount: Int = 0,
        error: OperationArchive.ErrorRecord? = nil,
        attempts: Int,
        startedAt: Date? = nil,
        finishedAt: Date
    ) {
        self.statusCode = statusCode
        self.headers = headers
        self.body = body
        self.bodyByteCount = bodyByteCount
        self.error = error
        self.attempts = attempts
        self.startedAt = startedAt
        self.finishedAt = finishedAt
    }

    /// One line: "201 after 2 attempts", or the error's description.
    public var summary: String {
        let tries = attempts == 1 ? "1 attempt" : "\(attempts) attempts"
        if let statusCode { return "\(statusCode) after \(tries)" }
        return "\(error?.description ?? "no response") after \(tries)"
    }
}
