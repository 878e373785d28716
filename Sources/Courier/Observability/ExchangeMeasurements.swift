import CoreMetrics
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The swift-metrics measurements of one exchange (see ``Telemetry`` for the names and dimensions).
struct ExchangeMeasurements: Sendable {
    private let factory: any MetricsFactory
    /// `http.request.method`, `url.scheme` and, when asked for, `server.address`: the dimensions every measurement has.
    private let dimensions: [(String, String)]
    private let activeRequests: Meter

    /// Counts `request` as active.
    init(factory: any MetricsFactory, request: URLRequest, labelsWithHost: Bool) {
        self.factory = factory
        var dimensions = [
            ("http.request.method", request.httpMethod ?? "GET"),
            ("url.scheme", request.url?.scheme?.lowercased() ?? "none"),
        ]
        if labelsWithHost { dimensions.append(("server.address", request.url?.host ?? "none")) }
        self.dimensions = dimensions
        activeRequests = Meter(label: "http.client.active_requests", dimensions: dimensions, factory: factory)
        activeRequests.increment()
    }

    /// Records the exchange's end: its duration, sizes, and what it ended with.
    func finished(_ outcome: Result<ExchangeResult, any Error>, duration: Duration, retries: Int, bytesSent: Int64) {
        activeRequests.decrement()
        let statusClass: String
        switch outcome {
        case .success(let result):
            statusClass = "\(min(max(result.response.statusCode / 100, 1), 9))xx"
            // A body handed to the caller (a stream) has not been read yet: its size is unknown here.
            if result.body == nil {
                Recorder(label: "http.client.response.body.size", dimensions: dimensions, factory: factory).record(result.bytesReceived)
            }
            let source = result.metrics.responseSource
            if source != .network {
                Counter(
                    label: "courier.http.client.cache_hits",
                    dimensions: dimensions + [("courier.cache.result", source == .cache ? "fresh" : "revalidated")],
                    factory: factory
                ).increment()
            }
        case .failure(let error):
            statusClass = "none"
            Counter(
                label: "courier.http.client.errors", dimensions: dimensions + [("error.type", ErrorType.name(of: error))], factory: factory
            ).increment()
        }
        Timer(
            label: "http.client.request.duration", dimensions: dimensions + [("http.response.status_class", statusClass)], factory: factory
        ).recordNanoseconds(Self.nanoseconds(duration))
        Recorder(label: "http.client.request.body.size", dimensions: dimensions, factory: factory).record(bytesSent)
        if retries > 0 {
            Counter(label: "courier.http.client.retries", dimensions: dimensions, factory: factory).increment(by: retries)
        }
    }

    /// `duration` in nanoseconds, saturating instead of trapping.
    private static func nanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        return overflow ? .max : whole.addingReportingOverflow(attoseconds / 1_000_000_000).partialValue
    }
}
