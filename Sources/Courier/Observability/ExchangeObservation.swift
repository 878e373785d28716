import Foundation
import Synchronization
import Tracing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Everything that watches one exchange: its log (swift-log), its spans (swift-distributed-tracing) and its
/// measurements (swift-metrics), each present only when something would receive it.
///
/// An exchange nobody observes makes none of this: ``init(configuration:request:)`` returns `nil` after a level
/// check and two type checks, and the stages find no ``current``.
final class ExchangeObservation: Sendable {
    let log: ExchangeLog?
    let trace: ExchangeTrace?
    let measurements: ExchangeMeasurements?
    private let start = ContinuousClock.now
    private let retries = Atomic<Int>(0)

    /// The running exchange's observation, for the stages and the transport end (which run in the exchange's task);
    /// set only while something observes it.
    @TaskLocal static var current: ExchangeObservation?

    /// Starts observing `request`, or returns `nil` when nothing would receive a record of it.
    init?(configuration: ExchangeConfiguration, request: URLRequest) {
        let log = ExchangeLog(base: configuration.logger)
        let tracer = configuration.telemetry.activeTracer
        let factory = configuration.telemetry.activeMetricsFactory
        guard log != nil || tracer != nil || factory != nil else { return nil }
        self.log = log
        trace = tracer.map { ExchangeTrace(tracer: $0, request: request) }
        measurements = factory.map {
            ExchangeMeasurements(factory: $0, request: request, labelsWithHost: configuration.telemetry.labelsMetricsWithHost)
        }
        log?.started(request)
    }

    /// Runs `body` with this observation (and the logical span's context, for the caller's own spans) current.
    func observing<T: Sendable>(_ body: () async -> T) async -> T {
        guard let trace else { return await Self.$current.withValue(self) { await body() } }
        return await ServiceContext.withValue(trace.span.context) {
            await Self.$current.withValue(self) { await body() }
        }
    }

    /// An interceptor decided to retry.
    func retrying(_ event: RetryEvent) {
        retries.add(1, ordering: .relaxed)
        log?.retrying(event)
    }

    /// Records the exchange's outcome everywhere.
    func finished(_ outcome: Result<ExchangeResult, any Error>, bytesSent: Int64) {
        let elapsed = ContinuousClock.now - start
        let retries = retries.load(ordering: .relaxed)
        if let log {
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            switch outcome {
            case .success(let result): log.finished(result, duration: seconds, retries: retries)
            case .failure(let error): log.failed(error, duration: seconds, retries: retries)
            }
        }
        trace?.finished(outcome)
        measurements?.finished(outcome, duration: elapsed, retries: retries, bytesSent: bytesSent)
    }
}
