import Courier
import Foundation

/// A job's columns as a store read them back, each of its column's type but not yet trusted: a row is untrusted input
/// (a database anyone with access can edit, a disk that can lose bytes). ``validated()`` checks every value's range
/// and meaning, and the request with `OperationArchive.Request.validated()`, so that no such row reaches a worker.
/// Every store reads its rows into one of these, so the rules are written once.
package struct StoredJobRecord {
    package var sequence: Int64
    package var id: String
    package var state: String
    /// `OperationArchive.Request` as JSON.
    package var request: Data
    package var bodyLength: Int64
    /// The body kept in the row (`nil`: none, in a file, or not read).
    package var inlineBody: Data?
    /// The name of the body's file in the store's folder (a store that keeps every body in its rows has none).
    package var bodyFile: String?
    package var orderingKey: String?
    /// Dates are seconds since 1970.
    package var notBefore: Double
    package var deadline: Double?
    package var requiresNetwork: Bool
    package var attempts: Int64
    package var leaseToken: String?
    package var enqueuedAt: Double
    /// A `JobOutcome` as JSON.
    package var outcome: Data?
    /// The enqueuer's trace context as a JSON object of strings.
    package var traceContext: Data?

    package init(
        sequence: Int64, id: String, state: String, request: Data, bodyLength: Int64, inlineBody: Data?, bodyFile: String?,
        orderingKey: String?, notBefore: Double, deadline: Double?, requiresNetwork: Bool, attempts: Int64,
        leaseToken: String?, enqueuedAt: Double, outcome: Data?, traceContext: Data?
    ) {
        self.sequence = sequence
        self.id = id
        self.state = state
        self.request = request
        self.bodyLength = bodyLength
        self.inlineBody = inlineBody
        self.bodyFile = bodyFile
        self.orderingKey = orderingKey
        self.notBefore = notBefore
        self.deadline = deadline
        self.requiresNetwork = requiresNetwork
        self.attempts = attempts
        self.leaseToken = leaseToken
        self.enqueuedAt = enqueuedAt
        self.outcome = outcome
        self.traceContext = traceContext
    }

    /// The largest attempt count a row may hold.
    package static let maximumAttempts = 1_000_000

    /// The job this row describes, once every value checks out.
    /// - Throws: ``QueueStoreError/invalidJob(id:field:reason:)`` naming the job and the first column that does not.
    package func validated() throws(QueueStoreError) -> StoredJob {
        guard let id = UUID(uuidString: id) else {
            throw .invalidJob(id: "#\(sequence)", field: "id", reason: "\(self.id.debugDescription) is not a UUID")
        }
        let name = id.uuidString
        guard let state = JobState(rawValue: state) else {
            throw .invalidJob(id: name, field: "state", reason: "\(self.state.debugDescription) is not a job state")
        }
        let request: OperationArchive.Request
        do {
            request = try JSONDecoder().decode(OperationArchive.Request.self, from: self.request).validated()
        } catch let error as OperationArchiveError {
            throw .invalidJob(id: name, field: "request", reason: error.description)
        } catch {
            throw .invalidJob(id: name, field: "request", reason: "is not a stored request (\(error.localizedDescription))")
        }
        guard request.url != nil else { throw .invalidJob(id: name, field: "request", reason: "has no URL") }
        guard bodyLength >= 0 else { throw .invalidJob(id: name, field: "body_length", reason: "\(bodyLength) is negative") }
        // A body file is named by its job's id, so that no row can point the queue at another file.
        if let bodyFile, bodyFile != name {
            throw .invalidJob(id: name, field: "body_file", reason: "\(bodyFile.debugDescription) is not the job's own file")
        }
        if let inlineBody, inlineBody.count != bodyLength {
            throw .invalidJob(id: name, field: "body", reason: "holds \(inlineBody.count) bytes, not the \(bodyLength) recorded")
        }
        guard (0...Int64(Self.maximumAttempts)).contains(attempts) else {
            throw .invalidJob(id: name, field: "attempts", reason: "\(attempts) is not a count of attempts")
        }
        var outcome: JobOutcome?
        if let data = self.outcome {
            guard let decoded = try? JSONDecoder().decode(JobOutcome.self, from: data) else {
                throw .invalidJob(id: name, field: "outcome", reason: "is not a stored outcome")
            }
            outcome = decoded
        }
        var context: [String: String] = [:]
        if let data = traceContext {
            guard let decoded = try? JSONDecoder().decode([String: String].self, from: data) else {
                throw .invalidJob(id: name, field: "trace_context", reason: "is not a stored trace context")
            }
            context = decoded
        }
        let job = QueuedJob(
            id: id, sequence: sequence, state: state, request: request, bodyByteCount: bodyLength, orderingKey: orderingKey,
            notBefore: try Self.date(notBefore, "not_before", job: name), deadline: try deadline.map { seconds throws(QueueStoreError) in
                try Self.date(seconds, "deadline", job: name)
            },
            requiresNetwork: requiresNetwork, attempts: Int(attempts), enqueuedAt: try Self.date(enqueuedAt, "enqueued_at", job: name),
            outcome: outcome
        )
        return StoredJob(job: job, bodyFile: bodyFile, inlineBody: inlineBody, traceContext: context, leaseToken: leaseToken)
    }

    /// A date: a finite number of seconds since 1970 within ±10,000 years.
    private static func date(_ seconds: Double, _ column: String, job: String) throws(QueueStoreError) -> Date {
        guard seconds.isFinite, abs(seconds) < 3.2e11 else {
            throw .invalidJob(id: job, field: column, reason: "\(seconds) is not a date")
        }
        return Date(timeIntervalSince1970: seconds)
    }
}

/// A stored job that passed ``StoredJobRecord/validated()``.
package struct StoredJob {
    package let job: QueuedJob
    /// The body's file name in the store's folder, when the body is in a file.
    package let bodyFile: String?
    package let inlineBody: Data?
    package let traceContext: [String: String]
    package let leaseToken: String?
}
