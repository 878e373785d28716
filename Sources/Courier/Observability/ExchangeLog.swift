import Foundation
import Logging
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The log events of one exchange (swift-log), each with the exchange's request id in its metadata
/// (`courier.request.id`): its start and end at `debug`, the pipeline's decisions at `trace`.
///
/// Nothing is made, not even the id, when the logger's level is above `debug`: an exchange then pays one level check.
struct ExchangeLog: Sendable {
    let logger: Logger

    private static let nextID = Atomic<UInt64>(0)

    /// The log of a new exchange, or nil when `base` logs nothing at `debug`.
    init?(base: Logger) {
        guard base.logLevel <= .debug else { return nil }
        var logger = base
        logger[metadataKey: "courier.request.id"] = "\(Self.nextID.add(1, ordering: .relaxed).newValue)"
        self.logger = logger
    }

    /// Whether the stages' decisions are logged.
    var tracesDecisions: Bool { logger.logLevel <= .trace }

    func started(_ request: URLRequest) {
        logger.debug("request started", metadata: [
            "http.request.method": "\(request.httpMethod ?? "GET")",
            "url.full": "\(LogRedaction.loggable(request.url))",
        ])
    }

    /// A retry decided by an interceptor.
    func retrying(_ event: RetryEvent) {
        logger.trace("retrying request", metadata: [
            "courier.retry": "\(event.retryNumber)",
            "courier.retry_delay_ms": "\(Self.milliseconds(event.delay))",
            "http.response.status_code": "\(event.response.map { "\($0.statusCode)" } ?? "none")",
            "error.message": "\(LogRedaction.loggable(event.error))",
        ])
    }

    func finished(_ result: ExchangeResult, duration: TimeInterval, retries: Int) {
        logger.debug("request finished", metadata: [
            "http.response.status_code": "\(result.response.statusCode)",
            "url.full": "\(LogRedaction.loggable(result.response.url))",
            "courier.duration_ms": "\(Self.milliseconds(duration))",
            "courier.bytes_received": "\(result.bytesReceived)",
            "courier.redirects": "\(result.redirectCount)",
            "courier.retries": "\(retries)",
        ])
    }

    func failed(_ error: any Error, duration: TimeInterval, retries: Int) {
        logger.debug(error is CancellationError || (error as? URLError)?.code == .cancelled ? "request cancelled" : "request failed", metadata: [
            "error.type": "\(ErrorType.name(of: error))",
            "error.message": "\(LogRedaction.loggable(error))",
            "courier.duration_ms": "\(Self.milliseconds(duration))",
            "courier.retries": "\(retries)",
        ])
    }

    /// A request going on the wire, with its header fields (secret ones masked).
    func sending(_ request: URLRequest) {
        let headers = request.allHTTPHeaderFields ?? [:]
        logger.trace("sending request", metadata: [
            "http.request.method": "\(request.httpMethod ?? "GET")",
            "url.full": "\(LogRedaction.loggable(request.url))",
            "http.request.headers": .dictionary(Dictionary(
                headers.map { ($0.key, Logger.MetadataValue.string(LogRedaction.loggable(header: $0.key, value: $0.value))) },
                uniquingKeysWith: { first, _ in first }
            )),
        ])
    }

    /// `seconds` in whole milliseconds as text, for any value (no conversion to `Int` that could trap).
    private static func milliseconds(_ seconds: TimeInterval) -> String {
        String(format: "%.0f", (seconds * 1000).rounded())
    }

    /// A pipeline decision (a redirect followed, a cache answer, a challenge answered), at `trace`.
    static func decision(_ message: @autoclosure () -> Logger.Message, _ metadata: @autoclosure () -> Logger.Metadata = [:]) {
        guard let log = ExchangeObservation.current?.log, log.tracesDecisions else { return }
        log.logger.trace(message(), metadata: metadata())
    }
}
