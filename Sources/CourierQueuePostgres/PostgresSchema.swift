/// The PostgreSQL store's table: one row per job, as the SQLite store's, with every body in its row (`bytea`, which
/// PostgreSQL moves out of the table's pages when long, so claims that read many rows do not read bodies); dates are
/// seconds since 1970 (`double precision`), the request is `OperationArchive.Request` as JSON without its body.
enum PostgresSchema {
    /// The schema's version, kept in `courier_queue_schema`; a database of a newer version is refused.
    static let version = 1

    /// The advisory lock that makes schema creation, and claims under a per-host limit, one at a time across every
    /// process of the database (an arbitrary constant: "Cour" in ASCII).
    static let lockKey: Int64 = 0x436F_7572

    static let statements: [String] = [
        "CREATE TABLE IF NOT EXISTS courier_queue_schema (version integer NOT NULL)",
        """
        CREATE TABLE IF NOT EXISTS courier_jobs (
            sequence bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            id uuid NOT NULL UNIQUE,
            state text NOT NULL,
            request bytea NOT NULL,
            body bytea,
            body_length bigint NOT NULL,
            host text NOT NULL,
            ordering_key text,
            not_before double precision NOT NULL,
            deadline double precision,
            requires_network boolean NOT NULL,
            attempts bigint NOT NULL DEFAULT 0,
            lease_token text,
            lease_worker text,
            lease_expires double precision,
            enqueued_at double precision NOT NULL,
            outcome bytea,
            trace_context bytea
        )
        """,
        // Claims walk the pending jobs in queue order; the schedule looks for the next due date; an ordering key's
        // earlier jobs are found by key.
        "CREATE INDEX IF NOT EXISTS courier_jobs_queue ON courier_jobs (state, sequence)",
        "CREATE INDEX IF NOT EXISTS courier_jobs_due ON courier_jobs (state, not_before)",
        "CREATE INDEX IF NOT EXISTS courier_jobs_ordering ON courier_jobs (ordering_key, sequence) WHERE ordering_key IS NOT NULL",
    ]

    /// The columns every read selects (all but the body, which only a claim reads), in the order
    /// `PostgresJobRow` reads them.
    static let columns = """
        sequence, id, state, request, body_length, host, ordering_key, not_before, deadline, requires_network, attempts, \
        lease_token, enqueued_at, outcome, trace_context
        """
}
