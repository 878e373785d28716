import AsyncHTTPClient

/// AsyncHTTPClient's answer to a request that waited in its connection pool's queue longer than the connect timeout
/// while the pool's connections were busy (`getConnectionFromPoolTimeout`): the request never left the client, so it
/// may queue again. The engine applies its connect timeout to that wait (it has no separate one); Courier's own
/// ``EngineTransport/Configuration/connectionWaitTimeout`` is meant to govern it, so the transport queues
/// such a request again until that wait runs out.
///
/// A queue timeout with no connection open (the engine reports `connectTimeout` or the last connection failure) is a
/// failure to connect, not a busy pool, and is not this.
struct ConnectionQueueExpiry: Error {
    /// `error` when it is the engine's queue timeout, else `nil`.
    init?(_ error: any Error) {
        guard let engine = error as? HTTPClientError, engine == .getConnectionFromPoolTimeout else { return nil }
    }
}
