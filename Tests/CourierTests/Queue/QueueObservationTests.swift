import Courier
import CourierQueue
import Foundation
import InMemoryTracing
import MetricsTestKit
import Testing
import Tracing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The queue's swift-metrics instruments and its attempt spans, recorded by `MetricsTestKit` and an in-memory tracer
/// while jobs run against the test server.
@Suite("RequestQueue observation", .timeLimit(.minutes(2)))
struct QueueObservationTests {
    @Test("counters count attempts, retries, successes and dead letters; the depth gauge ends at zero")
    func metricsCountWhatHappened() async throws {
        let metrics = TestMetrics()
        let fixture = try await QueueFixture.start(QueueConfiguration(
            retryPolicy: QueueFixture.policy(attempts: 3), metricsFactory: metrics), name: "orders")
        defer { Task { await fixture.stop() } }
        try await fixture.queue.enqueue(try fixture.request("/anything?ok", method: "POST"))
        try await fixture.queue.enqueue(try fixture.request("/status/404", method: "POST"))
        try await fixture.queue.enqueue(try fixture.request("/flaky/1/\(UUID().uuidString)", method: "POST"))
        try await fixture.queue.drain()

        let dimensions = [("queue", "orders")]
        #expect(try metrics.expectCounter("courier_queue_attempts_total", dimensions).totalValue == 4)
        #expect(try metrics.expectCounter("courier_queue_retries_total", dimensions).totalValue == 1)
        #expect(try metrics.expectCounter("courier_queue_succeeded_total", dimensions).totalValue == 2)
        #expect(try metrics.expectCounter("courier_queue_dead_letters_total", dimensions).totalValue == 1)
        #expect(try metrics.expectGauge("courier_queue_depth", dimensions).lastValue == 0)
    }

    @Test("each attempt's span links to the span that enqueued the job")
    func attemptSpansLinkToTheEnqueuer() async throws {
        let fixture = try await QueueFixture.start()
        defer { Task { await fixture.stop() } }
        let tracer = W3CInMemoryTracer()
        try await TaskRoutedTracer.withTracer(tracer) {
            let enqueuer = try await withSpan("checkout") { span in
                _ = try await fixture.queue.enqueue(try fixture.request("/flaky/1/\(UUID().uuidString)", method: "POST"))
                return try #require(span.context.inMemorySpanContext)
            }
            try await fixture.queue.drain()
            let attempts = tracer.recorder.finishedSpans.filter { $0.operationName == "courier.queue.attempt" }
            #expect(attempts.count == 2)
            for attempt in attempts {
                let linked = attempt.links.compactMap { $0.context.inMemorySpanContext }
                #expect(linked.map(\.spanID) == [enqueuer.spanID], "\(attempt.links)")
                #expect(linked.map(\.traceID) == [enqueuer.traceID])
            }
        }
    }
}
