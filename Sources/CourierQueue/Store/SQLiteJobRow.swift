import Foundation
import SQLiteNIO

/// Reads one `courier_jobs` row back. SQLite keeps any value in any column, so each column is first checked for its
/// type here; ``StoredJobRecord/validated()`` then checks what the values mean, as for every store.
enum SQLiteJobRow {
    static func read(_ row: SQLiteRow) throws(QueueStoreError) -> StoredJob {
        let sequence = try integer(row, "sequence", id: "?")
        let id = try text(row, "id", id: "#\(sequence)")
        let requiresNetwork = try integer(row, "requires_network", id: id)
        guard requiresNetwork == 0 || requiresNetwork == 1 else {
            throw .invalidJob(id: id, field: "requires_network", reason: "\(requiresNetwork) is neither 0 nor 1")
        }
        let record = StoredJobRecord(
            sequence: sequence, id: id, state: try text(row, "state", id: id), request: try blob(row, "request", id: id) ?? Data(),
            bodyLength: try integer(row, "body_length", id: id), inlineBody: try blob(row, "body", id: id),
            bodyFile: try optionalText(row, "body_file", id: id), orderingKey: try optionalText(row, "ordering_key", id: id),
            notBefore: try requiredSeconds(row, "not_before", id: id), deadline: try seconds(row, "deadline", id: id),
            requiresNetwork: requiresNetwork == 1, attempts: try integer(row, "attempts", id: id),
            leaseToken: try optionalText(row, "lease_token", id: id), enqueuedAt: try requiredSeconds(row, "enqueued_at", id: id),
            outcome: try blob(row, "outcome", id: id), traceContext: try blob(row, "trace_context", id: id)
        )
        return try record.validated()
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

    private static func requiredSeconds(_ row: SQLiteRow, _ column: String, id: String) throws(QueueStoreError) -> Double {
        guard let value = try seconds(row, column, id: id) else {
            throw .invalidJob(id: id, field: column, reason: "is missing")
        }
        return value
    }

    /// A number of seconds (`nil` for NULL); whether it is a date is the record's to say.
    private static func seconds(_ row: SQLiteRow, _ column: String, id: String) throws(QueueStoreError) -> Double? {
        switch row.column(column) {
        case .float(let value)?: return value
        case .integer(let value)?: return Double(value)
        case .null?, nil: return nil
        default: throw .invalidJob(id: id, field: column, reason: "is not a date")
        }
    }
}
