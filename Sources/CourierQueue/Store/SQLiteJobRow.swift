import Courier
import Foundation
import SQLiteNIO

/// One `courier_jobs` row read back. A row is untrusted input (a file anyone can edit, a disk that can lose bytes):
/// every column is checked for its type and range, the request with ``OperationArchive/Request/validated()``, and a
/// body file's name must be the job's own id, so that no row can point the queue at another file.
struct SQLiteJobRow {
    let job: QueuedJob
    /// The body's file name in the store's folder, when the body is in a file.
    let bodyFile: String?
    let inlineBody: Data?
    let traceContext: [String: String]
    let leaseToken: String?

    /// The largest attempt count a row may hold.
    static let maximumAttempts = 1_000_000

    init(_ row: SQLiteRow) throws(QueueStoreError) {
        let sequence = try Self.integer(row, "sequence", id: "?")
        let idText = try Self.text(row, "id", id: "#\(sequence)")
        guard let id = UUID(uuidString: idText) else {
            throw .invalidJob(id: "#\(sequence)", field: "id", reason: "\(idText.debugDescription) is not a UUID")
        }
        let name = id.uuidString
        let stateText = try Self.text(row, "state", id: name)
        guard let state = JobState(rawValue: stateText) else {
            throw .invalidJob(id: name, field: "state", reason: "\(stateText.debugDescription) is not a job state")
        }
        let requestData = try Self.blob(row, "request", id: name) ?? Data()
        let request: OperationArchive.Request
        do {
            request = try JSONDecoder().decode(OperationArchive.Request.self, from: requestData).validated()
        } catch let error as OperationArchiveError {
            throw .invalidJob(id: name, field: "request", reason: error.description)
        } catch {
            throw .invalidJob(id: name, field: "request", reason: "is not a stored request (\(error.localizedDescription))")
        }
        guard request.url != nil else { throw .invalidJob(id: name, field: "request", reason: "has no URL") }
        let bodyLength = try Self.integer(row, "body_length", id: name)
        guard bodyLength >= 0 else { throw .invalidJob(id: name, field: "body_length", reason: "\(bodyLength) is negative") }
        inlineBody = try Self.blob(row, "body", id: name)
        bodyFile = try Self.optionalText(row, "body_file", id: name)
        if let bodyFile, bodyFile != name {
            throw .invalidJob(id: name, field: "body_file", reason: "\(bodyFile.debugDescription) is not the job's own file")
        }
        if let inlineBody, inlineBody.count != bodyLength {
            throw .invalidJob(id: name, field: "body", reason: "holds \(inlineBody.count) bytes, not the \(bodyLength) recorded")
        }
        let attempts = try Self.integer(row, "attempts", id: name)
        guard (0...Int64(Self.maximumAttempts)).contains(attempts) else {
            throw .invalidJob(id: name, field: "attempts", reason: "\(attempts) is not a count of attempts")
        }
        let requiresNetwork = try Self.integer(row, "requires_network", id: name)
        guard requiresNetwork == 0 || requiresNetwork == 1 else {
            throw .invalidJob(id: name, field: "requires_network", reason: "\(requiresNetwork) is neither 0 nor 1")
        }
        var outcome: JobOutcome?
        if let data = try Self.blob(row, "outcome", id: name) {
            guard let decoded = try? JSONDecoder().decode(JobOutcome.self, from: data) else {
                throw .invalidJob(id: name, field: "outcome", reason: "is not a stored outcome")
            }
            outcome = decoded
        }
        var context: [String: String] = [:]
        if let data = try Self.blob(row, "trace_context", id: name) {
            guard let decoded = try? JSONDecoder().decode([String: String].self, from: data) else {
                throw .invalidJob(id: name, field: "trace_context", reason: "is not a stored trace context")
            }
            context = decoded
        }
        traceContext = context
        leaseToken = try Self.optionalText(row, "lease_token", id: name)
        job = QueuedJob(
            id: id, sequence: sequence, state: state, request: request, bodyByteCount: bodyLength,
            orderingKey: try Self.optionalText(row, "ordering_key", id: name),
            notBefore: try Self.date(row, "not_before", id: name),
            deadline: try Self.optionalDate(row, "deadline", id: name),
            requiresNetwork: requiresNetwork == 1, attempts: Int(attempts),
            enqueuedAt: try Self.date(row, "enqueued_at", id: name), outcome: outcome
        )
    }

    private static func integer(_ row: SQLiteRow, _ column: String, id: String) throws(QueueStoreError) -> Int64 {
        guard case .integer(let value)? = row.column(column) else {
            throw .invalidJob(id: id, field: column, reason: "is not an integer")
        }
        return Int64(value)
    }

    private static func text(_ row: SQLiteRow, _ column: String, id: String) throws(QueueStoreError) -> String {
        guard let value = try optionalText(row, column, id: id) else {
            throw .invalidJob(id: id, field: column, reason: "is missing")
        }
        return value
    }

    private static func optionalText(_ row: SQLiteRow, _ column: String, id: String) throws(QueueStoreError) -> String? {
        switch row.column(column) {
        case .text(let value)?: return value
        case .null?, nil: return nil
        default: throw .invalidJob(id: id, field: column, reason: "is not text")
        }
    }

    private static func blob(_ row: SQLiteRow, _ column: String, id: String) throws(QueueStoreError) -> Data? {
        switch row.column(column) {
        case .blob(let buffer)?: return Data(buffer.readableBytesView)
        case .text(let text)?: return Data(text.utf8)
        case .null?, nil: return nil
        default: throw .invalidJob(id: id, field: column, reason: "is not a blob")
        }
    }

    /// A date: a finite number of seconds since 1970 within ±10,000 years.
    private static func date(_ row: SQLiteRow, _ column: String, id: String) throws(QueueStoreError) -> Date {
        guard let date = try optionalDate(row, column, id: id) else {
            throw .invalidJob(id: id, field: column, reason: "is missing")
        }
        return date
    }

    private static func optionalDate(_ row: SQLiteRow, _ column: String, id: String) throws(QueueStoreError) -> Date? {
        let seconds: Double
        switch row.column(column) {
        case .float(let value)?: seconds = value
        case .integer(let value)?: seconds = Double(value)
        case .null?, nil: return nil
        default: throw .invalidJob(id: id, field: column, reason: "is not a date")
        }
        guard seconds.isFinite, abs(seconds) < 3.2e11 else {
            throw .invalidJob(id: id, field: column, reason: "\(seconds) is not a date")
        }
        return Date(timeIntervalSince1970: seconds)
    }
}
