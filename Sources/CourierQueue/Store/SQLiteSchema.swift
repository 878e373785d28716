/// The SQLite store's tables. One row per job; dates are seconds since 1970 (REAL); the request is
/// `OperationArchive.Request` as JSON without its body; a body of up to 64 KiB is kept in the row, a longer one in a
/// file of the store's folder named by the job's id.
enum SQLiteSchema {
    /// The schema's version, kept in `PRAGMA user_version`; a store of a newer version is refused.
    static let version = 1

    static let statements = [
        """
        CREATE TABLE IF NOT EXISTS courier_jobs (
            sequence INTEGER PRIMARY KEY AUTOINCREMENT,
            id TEXT NOT NULL UNIQUE,
            state TEXT NOT NULL,
            request BLOB NOT NULL,
            body BLOB,
            body_file TEXT,
            body_length INTEGER NOT NULL,
            host TEXT NOT NULL,
            ordering_key TEXT,
            not_before REAL NOT NULL,
            deadline REAL,
            requires_network INTEGER NOT NULL,
            attempts INTEGER NOT NULL DEFAULT 0,
            lease_token TEXT,
            lease_worker TEXT,
            lease_expires REAL,
            enqueued_at REAL NOT NULL,
            outcome BLOB,
            trace_context BLOB
        )
        """,
        // Claims walk the pending jobs in queue order; the schedule looks for the next due date.
        "CREATE INDEX IF NOT EXISTS courier_jobs_queue ON courier_jobs (state, sequence)",
        "CREATE INDEX IF NOT EXISTS courier_jobs_due ON courier_jobs (state, not_before)",
        "CREATE INDEX IF NOT EXISTS courier_jobs_ordering ON courier_jobs (ordering_key, sequence) WHERE ordering_key IS NOT NULL",
    ]

    /// The columns every read selects, in the order ``SQLiteJobRow`` reads them.
    static let columns = """
        sequence, id, state, request, body, body_file, body_length, host, ordering_key, not_before, deadline, \
        requires_network, attempts, lease_token, enqueued_at, outcome, trace_context
        """
}
