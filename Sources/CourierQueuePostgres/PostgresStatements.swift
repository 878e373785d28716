import Logging
import PostgresNIO

// postgres-nio reports a statement's failure while its rows are read: a statement whose row sequence is dropped unread
// can fail unseen, and the transaction it was part of goes on, aborted ("current transaction is aborted" from the
// next statement, the first error lost). The store runs every statement through `all`, which reads it to its end.

extension PostgresConnection {
    /// Runs `query` to its end; its rows.
    @discardableResult
    func all(_ query: PostgresQuery, logger: Logger) async throws -> [PostgresRow] {
        try await self.query(query, logger: logger).collect()
    }
}

extension PostgresClient {
    /// Runs `query` on one of the pool's connections to its end; its rows.
    @discardableResult
    func all(_ query: PostgresQuery, logger: Logger) async throws -> [PostgresRow] {
        try await self.query(query, logger: logger).collect()
    }
}
