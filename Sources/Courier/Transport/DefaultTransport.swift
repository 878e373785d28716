/// The default engine, named in this one place: sessions and operations that were given no transport ask here
/// for one, so nothing above ``HTTPTransport`` depends on AsyncHTTPClient.
enum DefaultTransport {
    /// A new transport with its own connection pool, made with `settings`; its owner shuts it down.
    static func make(_ settings: TransportSettings) -> any HTTPTransport {
        EngineTransport(configuration: .init(settings: settings))
    }
}
