import Foundation

/// Why a queue's store, or one of its jobs, cannot be used. Each names the file or the job.
public enum QueueStoreError: Error, Sendable, Equatable, CustomStringConvertible, LocalizedError {
    /// The store's file cannot be opened or is not a database of this kind (`reason` is SQLite's).
    case unreadableStore(path: String, reason: String)
    /// A stored job holds a value no queue writes (a row edited by hand, a disk that lost bytes): it is
    /// dead-lettered with this error and the rest of the queue goes on.
    case invalidJob(id: String, field: String, reason: String)
    /// A job's body file is gone from the store's folder.
    case bodyFileMissing(id: UUID, path: String)
    /// The job's deadline passed before it could start (again).
    case deadlinePassed(id: UUID, deadline: Date)
    /// A request that cannot be enqueued: no transport would send it.
    case invalidRequest(reason: String)
    /// The body could not be made durable (`reason` is the file system's).
    case bodyNotStored(path: String, reason: String)

    /// One sentence naming the file or the job.
    public var description: String {
        switch self {
        case .unreadableStore(let path, let reason):
            "The queue store \(path) cannot be used: \(reason)."
        case .invalidJob(let id, let field, let reason):
            "The queued job \(id) cannot be read back: its \(field) \(reason); it was dead-lettered."
        case .bodyFileMissing(let id, let path):
            "The body of the queued job \(id.uuidString) is missing (\(path)); it was dead-lettered."
        case .deadlinePassed(let id, let deadline):
            "The queued job \(id.uuidString) was not sent: its deadline (\(deadline.formatted(.iso8601))) passed."
        case .invalidRequest(let reason):
            "The request cannot be queued: \(reason)."
        case .bodyNotStored(let path, let reason):
            "The request's body could not be stored at \(path): \(reason)."
        }
    }

    /// The same as ``description``.
    public var errorDescription: String? { description }
}
