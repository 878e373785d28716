import CoreMetrics
import Tracing

/// Where an exchange's spans (swift-distributed-tracing) and measurements (swift-metrics) go.
///
/// By default both follow the process's bootstrapped systems, read when each exchange starts: with nothing
/// bootstrapped (`NoOpTracer`, `NOOPMetricsHandler`) an exchange makes no span and records nothing, and pays two type
/// checks.
///
/// ```swift
/// InstrumentationSystem.bootstrap(otelTracer)        // swift-otel: spans and W3C `traceparent`
/// MetricsSystem.bootstrap(prometheusFactory)         // swift-prometheus
/// let session = URLSessionManager(configuration: .default)   // telemetry: .bootstrapped
/// ```
///
/// **Spans.** One span for the logical request (kind `internal`, named by the method) and, as its children, one
/// `client` span per request on the wire (each redirect hop, authentication answer and retry), following
/// OpenTelemetry's HTTP client conventions: `http.request.method`, `url.full` (without credentials; secret-looking
/// query values masked), `server.address`, `server.port`, `http.response.status_code`, `network.protocol.version`,
/// `http.request.resend_count` and, for a failure or a status of 400 or more, `error.type` and an error status. The
/// logical span is a child of the caller's `ServiceContext.current` and is current for the caller's stages and
/// interceptors; each wire request carries its span's context in its header fields, injected by the tracer (for
/// swift-otel's W3C propagator: `traceparent` and `tracestate`). A wire span ends when the next request starts or
/// the exchange ends.
///
/// An exchange ends with its body, except when the body is handed to the caller as a stream (`bytes(for:)`,
/// CourierOpenAPI, `ResponseSink.stream`): then spans and measurements end with the head, and no response body size
/// is recorded (a known gap: the stream's end is not reported to them yet).
///
/// **Metrics.** Per logical request: `http.client.request.duration` (a timer, from the start to the end of the
/// body), `http.client.active_requests` (a meter), `http.client.request.body.size` and
/// `http.client.response.body.size` (recorders, bytes; the request body of the last request on the wire), `courier.http.client.errors` (a counter, by `error.type`:
/// the `URLError` code's name, or the error's type), `courier.http.client.retries` and
/// `courier.http.client.cache_hits` (counters, by `courier.cache.result`: `fresh` or `revalidated`; an answer the cache
/// gave with no request on the wire is counted there only, not in the duration or the sizes). Dimensions, by
/// OpenTelemetry's HTTP client conventions: `http.request.method` (a method they do not know is `_OTHER`),
/// `url.scheme`, and `server.address` and `server.port` when ``labelsMetricsWithHost`` is on; on the duration also
/// `http.response.status_code`, `network.protocol.version` ("1.1", "2") and, for a failure or a status of 400 or
/// more, `error.type` (the status code, or the error's name).
///
/// Per connection of the transport: `http.client.open_connections` (a meter, by `network.protocol.version`: up when a
/// connection is ready to carry requests, down when it closes; without `http.connection.state`, as the engine does not
/// say when a pooled connection is idle) and `http.client.connection.duration` (a timer, from ready to closed), made
/// with ``TransportSettings/metricsFactory`` or, for a session's own transport, the session's ``metricsFactory``.
public struct Telemetry: Sendable {
    /// The tracer spans are made with. Default `nil`: `InstrumentationSystem.tracer`, as bootstrapped when each
    /// exchange starts.
    public var tracer: (any Tracer)?
    /// The factory measurements are made with. Default `nil`: `MetricsSystem.factory`, as bootstrapped when each
    /// exchange starts.
    public var metricsFactory: (any MetricsFactory)?
    /// Whether measurements carry the `server.address` and `server.port` dimensions. Default `false`, where the
    /// conventions ask for them: a client talking to many hosts (a crawler, `courier batch`) would otherwise make
    /// one series per host; turn it on for a service that talks to a few.
    public var labelsMetricsWithHost: Bool

    /// Creates telemetry settings.
    /// - Parameters:
    ///   - tracer: The tracer. Default `nil`: the bootstrapped one.
    ///   - metricsFactory: The metrics factory. Default `nil`: the bootstrapped one.
    ///   - labelsMetricsWithHost: Whether measurements carry `server.address` and `server.port`. Default `false`.
    public init(tracer: (any Tracer)? = nil, metricsFactory: (any MetricsFactory)? = nil, labelsMetricsWithHost: Bool = false) {
        self.tracer = tracer
        self.metricsFactory = metricsFactory
        self.labelsMetricsWithHost = labelsMetricsWithHost
    }

    /// The process's bootstrapped tracer and metrics factory, without host labels: the default everywhere.
    public static let bootstrapped = Telemetry()

    /// The tracer to use now, or `nil` when it would make no spans.
    var activeTracer: (any Tracer)? {
        let tracer = tracer ?? InstrumentationSystem.tracer
        return tracer is NoOpTracer ? nil : tracer
    }

    /// The metrics factory to use now, or `nil` when it would record nothing.
    var activeMetricsFactory: (any MetricsFactory)? {
        let factory = metricsFactory ?? MetricsSystem.factory
        return factory is NOOPMetricsHandler ? nil : factory
    }
}
