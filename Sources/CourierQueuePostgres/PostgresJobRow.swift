import CourierQueue
import Foundation
import PostgresNIO

/// Reads one `courier_jobs` row back. The table's column types hold for every row, but a column's type can be changed
/// by hand, so each decode failure names its column; `StoredJobRecord.validated()` then checks what the values mean,
/// as for every store.
enum PostgresJobRow {
    static func read(_ row: PostgresRow, body: Data? = nil) throws(QueueStoreError) -> StoredJob {
        let columns = row.makeRandomAccess()
        let sequence = try decode(columns, "sequence", Int64.self, id: "?")
        let id = try decode(columns, "id", UUID.self, id: "#\(sequence)").uuidString
        let record = StoredJobRecord(
            sequence: sequence, id: id, state: try decode(columns, "state", String.self, id: id),
            request: try decode(columns, "request", Data.self, id: id), bodyLength: try decode(columns, "body_length", Int64.self, id: id),
            inlineBody: body, bodyFile: nil, orderingKey: try decode(columns, "ordering_key", String?.self, id: id),
            notBefore: try decode(columns, "not_before", Double.self, id: id), deadline: try decode(columns, "deadline", Double?.self, id: id),
            requiresNetwork: try decode(columns, "requires_network", Bool.self, id: id),
            attempts: try decode(columns, "attempts", Int64.self, id: id), leaseToken: try decode(columns, "lease_token", String?.self, id: id),
            enqueuedAt: try decode(columns, "enqueued_at", Double.self, id: id), outcome: try decode(columns, "outcome", Data?.self, id: id),
            traceContext: try decode(columns, "trace_context", Data?.self, id: id)
        )
        return try record.validated()
    }

    private static func decode<Value: PostgresDecodable>(
        _ row: PostgresRandomAccessRow, _ column: String, _ type: Value.Type, id: String
    ) throws(QueueStoreError) -> Value {
        guard row.contains(column) else { throw .invalidJob(id: id, field: column, reason: "is missing") }
        do {
            return try row[column].decode(Value.self)
        } catch {
            throw .invalidJob(id: id, field: column, reason: "is not of the type the queue stores (\(row[column].dataType))")
        }
    }
}
