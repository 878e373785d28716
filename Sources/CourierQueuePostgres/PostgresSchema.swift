/// The PostgreSQL store's table: one row per job, as the SQLite store's, with every body in its row (`bytea`, which
/// PostgreSQL moves out of the table's pages when long, so claims that read many rows do not read bodies); dates are
/// seconds since 1970 (`double precision`), the request is `OperationArchive.Request` as JSON without its body.
enum PostgresSchema {
    /// The schema's version, kept in `courier_queue_schema`; a database of a newer version is refused.
    static let version: Int32 = 1

    /// The advisory lock that makes claims under a per-host limit one at a time across every process of the database
    /// (an arbitrary constant: "Cour" in ASCII).
    static let lockKey: Int64 = 0x436F_7572
    /// The advisory lock that makes schema creation one at a time ("CourSchm").
    static let schemaLockKey: Int64 = 0x436F_7572_5363_686D

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
        // Claims walk the pending jobs in queue order by a partial index: the planner takes it whatever its statistics
        // say (with (state, sequence) alone it was seen walking the primary key through every finished job, each
        // claim slower as a drain went on). Counts by state, the schedule's next due date and an ordering key's
        // earlier jobs have their own.
        "CREATE INDEX IF NOT EXISTS courier_jobs_pending ON courier_jobs (sequence) WHERE state = 'pending'",
        "CREATE INDEX IF NOT EXISTS courier_jobs_queue ON courier_jobs (state, sequence)",
        "CREATE INDEX IF NOT EXISTS courier_jobs_due ON courier_jobs (state, not_before)",
        "CREATE INDEX IF NOT EXISTS courier_jobs_ordering ON courier_jobs (ordering_key, sequence) WHERE ordering_key IS NOT NULL",
        claimFunction,
    ]

    /// A claim, run by the server in one round trip (each statement of a PL/pgSQL function reads the rows as they are
    /// when it starts, so the count of running jobs below sees every claim committed before the lock was granted):
    /// - its commit does not wait for the disk (`synchronous_commit` off for it alone): the lock is held until the
    ///   commit ends, and a claim the server loses in a crash only leaves its jobs pending, to be claimed and sent
    ///   again, which at-least-once delivery allows (enqueues and outcomes keep the server's durable commits);
    /// - jobs whose lease ran out go back to pending (rows another transaction holds are left to the next claim, so
    ///   that a claim never waits for a row while other claims may wait for its lock);
    /// - with `serialize` (a per-host limit), claims go one at a time from here to the commit, so that a host's count
    ///   of running jobs holds;
    /// - due jobs in order (of an ordering key's jobs only the earliest unfinished one; rows another worker holds
    ///   skipped, not waited for), as many of each host as its limit leaves, are marked running and returned.
    /// Measured with four workers on one host (scripts/bench-queue): the same steps as five statements from the client
    /// drained 154 jobs a second (the lock held across three client round trips), this function with durable commits
    /// 188 (the lock held through each commit's flush).
    static let claimFunction = """
        CREATE OR REPLACE FUNCTION courier_claim(
            claim_now double precision, claim_online boolean, claim_fetch bigint, claim_per_host bigint, claim_limit bigint,
            claim_token text, claim_worker text, claim_expires double precision, claim_serialize boolean)
        RETURNS SETOF courier_jobs LANGUAGE plpgsql AS $claim$
        BEGIN
            PERFORM set_config('synchronous_commit', 'off', true);
            UPDATE courier_jobs SET state = 'pending', lease_token = NULL, lease_worker = NULL, lease_expires = NULL
            WHERE sequence IN (
                SELECT r.sequence FROM courier_jobs AS r
                WHERE r.state = 'running' AND (r.lease_expires IS NULL OR NOT r.lease_expires > claim_now)
                FOR UPDATE SKIP LOCKED);
            IF claim_serialize THEN
                PERFORM pg_advisory_xact_lock(\(lockKey));
            END IF;
            RETURN QUERY
            WITH running AS (
                SELECT r.host, count(*) AS jobs FROM courier_jobs AS r WHERE r.state = 'running' GROUP BY r.host
            ), candidates AS (
                SELECT j.sequence, j.host FROM courier_jobs AS j
                WHERE j.state = 'pending' AND j.not_before <= claim_now AND (j.deadline IS NULL OR j.deadline >= claim_now)
                  AND (claim_online OR NOT j.requires_network)
                  AND (j.ordering_key IS NULL OR NOT EXISTS (
                    SELECT 1 FROM courier_jobs AS o WHERE o.ordering_key = j.ordering_key AND o.sequence < j.sequence
                      AND o.state IN ('pending', 'running')))
                ORDER BY j.sequence LIMIT claim_fetch FOR UPDATE SKIP LOCKED
            ), ranked AS (
                SELECT c.sequence, COALESCE(r.jobs, 0) + row_number() OVER (PARTITION BY c.host ORDER BY c.sequence) AS slot
                FROM candidates AS c LEFT JOIN running AS r ON r.host = c.host
            ), chosen AS (
                SELECT k.sequence FROM ranked AS k WHERE k.slot <= claim_per_host ORDER BY k.sequence LIMIT claim_limit
            )
            UPDATE courier_jobs AS t SET state = 'running', attempts = t.attempts + 1, lease_token = claim_token,
                lease_worker = claim_worker, lease_expires = claim_expires
            FROM chosen WHERE t.sequence = chosen.sequence
            RETURNING t.*;
        END
        $claim$
        """

    /// The columns every read selects (all but the body, which only a claim reads), in the order
    /// `PostgresJobRow` reads them.
    static let columns = """
        sequence, id, state, request, body_length, host, ordering_key, not_before, deadline, requires_network, attempts, \
        lease_token, enqueued_at, outcome, trace_context
        """
}
