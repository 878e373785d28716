import CoreMetrics
import NIOCore
import OTelSemanticConventions

/// The measurements of a transport's connections, by OpenTelemetry's HTTP client conventions:
/// `http.client.open_connections` (a meter: up when a connection is ready to carry requests, down when it closes) and
/// `http.client.connection.duration` (a timer, from ready to closed), by `network.protocol.version`.
///
/// Per connection, never per request: a client that reuses its connections pays nothing here. The conventions also
/// ask for `http.connection.state` (`idle` or `active`), which the engine does not expose (it does not say when a
/// pooled connection goes idle), so the dimension is left out: the meter counts every open connection.
struct ConnectionMeasurements: Sendable {
    private let factory: any MetricsFactory
    private let dimensions: [(String, String)]

    /// Measurements of connections speaking `protocolVersion` ("1.1" or "2"), made with `factory` (the bootstrapped
    /// one when `nil`); `nil` when that records nothing.
    init?(factory: (any MetricsFactory)?, protocolVersion: String) {
        let factory = factory ?? MetricsSystem.factory
        guard !(factory is NOOPMetricsHandler) else { return nil }
        self.factory = factory
        dimensions = [(OTelAttribute.network.protocol.version, protocolVersion)]
    }

    /// Counts `channel` as open until it closes, then records how long it was.
    func opened(_ channel: any Channel) {
        // Made at the first connection, not with the client: a version no connection spoke makes no series.
        let open = Meter(label: "http.client.open_connections", dimensions: dimensions, factory: factory)
        open.increment()
        let started = ContinuousClock.now
        let (factory, dimensions) = (factory, dimensions)
        channel.closeFuture.whenComplete { _ in
            // The duration first: whoever sees the meter fall finds the connection's duration already recorded.
            let (seconds, attoseconds) = (ContinuousClock.now - started).components
            Timer(label: "http.client.connection.duration", dimensions: dimensions, factory: factory)
                .recordNanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
            open.decrement()
        }
    }
}
