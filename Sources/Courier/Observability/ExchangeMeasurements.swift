import CoreMetrics
import Foundation
import OTelSemanticConventions
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The swift-metrics measurements of one exchange (see ``Telemetry`` for the names and dimensions).
struct ExchangeMeasurements: Sendable {
    private let factory: any MetricsFactory
    /// `http.request.method`, `url.scheme` and, when asked for, `server.address` and `server.port`: the dimensions
    /// every measurement has (OpenTelemetry's HTTP client conventions, their names from OTelSemanticConventions).
    private let dimensions: [(String, String)]
    private let activeRequests: Meter

    /// Counts `request` as active.
    init(factory: any MetricsFactory, request: URLRequest, labelsWithHost: Bool) {
        self.factory = factory
        let scheme = request.url?.scheme?.lowercased() ?? "none"
        var dimensions = [
            (OTelAttribute.http.request.method, Self.method(of: request)),
            (OTelAttribute.url.scheme, scheme),
        ]
        if labelsWithHost {
            dimensions.append((OTelAttribute.server.address, request.url?.host ?? "none"))
            if let port = request.url?.port ?? (scheme == "https" ? 443 : scheme == "http" ? 80 : nil) {
                dimensions.append((OTelAttribute.server.port, String(port)))
            }
        }
        self.dimensions = dimensions
        activeRequests = Meter(label: "http.client.active_requests", dimensions: dimensions, factory: factory)
        activeRequests.increment()
    }

    /// Records the exchange's end: its duration, sizes, and what it ended with.
    ///
    /// An answer the cache gave without any request on the wire is counted in `courier.http.client.cache_hits` only:
    /// the conventions' duration and sizes are those of HTTP requests, and a stored answer's protocol version says
    /// nothing about this one (OkHttp's event listener tells cache hits apart in the same way). When some request did
    /// go out (a revalidation, a redirect to a stored answer), the duration is recorded with the protocol version of
    /// the last one that did.
    func finished(_ outcome: Result<ExchangeResult, any Error>, duration: Duration, retries: Int, bytesSent: Int64) {
        activeRequests.decrement()
        var ended = dimensions
        switch outcome {
        case .success(let result):
            let source = result.metrics.responseSource
            if source != .network {
                Counter(
                    label: "courier.http.client.cache_hits",
                    dimensions: dimensions + [("courier.cache.result", source == .cache ? "fresh" : "revalidated")],
                    factory: factory
                ).increment()
            }
            guard let wire = result.metrics.transactions.last(where: { !$0.isFromCache }) else { return }
            let status = result.response.statusCode
            ended.append((OTelAttribute.http.response.statusCode, String(status)))
            // The conventions' error for an answer of 400 or more is its status code.
            if status >= 400 { ended.append((OTelAttribute.error.type, String(status))) }
            if let version = wire.httpVersion.flatMap(Self.protocolVersion) {
                ended.append((OTelAttribute.network.protocol.version, version))
            }
            // A body handed to the caller (a stream) has not been read yet: its size is unknown here.
            if result.body == nil {
                Recorder(label: "http.client.response.body.size", dimensions: dimensions, factory: factory).record(result.bytesReceived)
            }
        case .failure(let error):
            let type = ErrorType.name(of: error)
            ended.append((OTelAttribute.error.type, type))
            Counter(label: "courier.http.client.errors", dimensions: dimensions + [(OTelAttribute.error.type, type)], factory: factory).increment()
        }
        Timer(label: "http.client.request.duration", dimensions: ended, factory: factory).recordNanoseconds(Self.nanoseconds(duration))
        Recorder(label: "http.client.request.body.size", dimensions: dimensions, factory: factory).record(bytesSent)
        if retries > 0 {
            Counter(label: "courier.http.client.retries", dimensions: dimensions, factory: factory).increment(by: retries)
        }
    }

    /// The request's method as the conventions name it: one of the methods they know, or `_OTHER` (a method a caller
    /// made up would otherwise make a series of its own).
    static func method(of request: URLRequest) -> String {
        let method = (request.httpMethod ?? "GET").uppercased()
        return knownMethods.contains(method) ? method : "_OTHER"
    }

    private static let knownMethods: Set<String> = ["CONNECT", "DELETE", "GET", "HEAD", "OPTIONS", "PATCH", "POST", "PUT", "TRACE", "QUERY"]

    /// `"HTTP/1.1"` as the conventions' `network.protocol.version`, "1.1"; "HTTP/2.0" as "2".
    static func protocolVersion(_ version: String) -> String? {
        let number = version.uppercased().replacingOccurrences(of: "HTTP/", with: "")
        switch number {
        case "2", "2.0": return "2"
        case "3", "3.0": return "3"
        case "1.0", "1.1": return number
        default: return nil
        }
    }

    /// `duration` in nanoseconds, saturating instead of trapping.
    private static func nanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        return overflow ? .max : whole.addingReportingOverflow(attoseconds / 1_000_000_000).partialValue
    }
}
