import Foundation
import InMemoryTracing
import Synchronization
import Tracing

/// An `InMemoryTracer` with W3C-shaped ids (32 and 16 hex digits) that propagates them as a W3C `traceparent`,
/// as swift-otel's propagator does, so a server's echo of the header can be compared with the recorded spans.
struct W3CInMemoryTracer: Tracer {
    let recorder = InMemoryTracer(idGenerator: .init(
        nextTraceID: { W3CInMemoryTracer.hex(bytes: 16) },
        nextSpanID: { W3CInMemoryTracer.hex(bytes: 8) }
    ))

    static func hex(bytes: Int) -> String {
        (0..<bytes).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
    }

    func startSpan<Instant: TracerInstant>(
        _ operationName: String, context: @autoclosure () -> ServiceContext, ofKind kind: SpanKind,
        at instant: @autoclosure () -> Instant, function: String, file fileID: String, line: UInt
    ) -> InMemorySpan {
        recorder.startSpan(operationName, context: context(), ofKind: kind, at: instant(), function: function, file: fileID, line: line)
    }

    func inject<Carrier, Inject: Injector>(_ context: ServiceContext, into carrier: inout Carrier, using injector: Inject)
    where Inject.Carrier == Carrier {
        guard let span = context.inMemorySpanContext else { return }
        injector.inject("00-\(span.traceID)-\(span.spanID)-01", forKey: "traceparent", into: &carrier)
    }

    /// Reads a W3C `traceparent` (`00-TRACE-SPAN-FLAGS`) into the context's span context, as swift-otel's
    /// propagator does: what a stored trace context (the durable queue's) is read back with.
    func extract<Carrier, Extract: Extractor>(_ carrier: Carrier, into context: inout ServiceContext, using extractor: Extract)
    where Extract.Carrier == Carrier {
        guard let value = extractor.extract(key: "traceparent", from: carrier) else { return }
        let parts = value.split(separator: "-")
        guard parts.count == 4, parts[1].count == 32, parts[2].count == 16 else { return }
        context.inMemorySpanContext = InMemorySpanContext(traceID: String(parts[1]), spanID: String(parts[2]), parentSpanID: nil)
    }

    func forceFlush() {}

    /// Finished spans of the trace `traceID`.
    func spans(inTrace traceID: String) -> [FinishedInMemorySpan] {
        recorder.finishedSpans.filter { $0.traceID == traceID }
    }
}

/// The tracer the tests bootstrap into `InstrumentationSystem` (once per process): it hands spans to the
/// ``W3CInMemoryTracer`` a test made current with ``withTracer(_:_:)`` and, for every other test running in the
/// process (and for code that starts spans outside any task, as an event loop would), records them in ``unrouted``
/// and injects nothing, so their requests are unchanged.
struct TaskRoutedTracer: Tracer {
    @TaskLocal static var current: W3CInMemoryTracer?

    /// Spans started while no test's tracer was current.
    static let unrouted = InMemoryTracer()

    /// Bootstraps the process's tracer the first time it is used.
    static let bootstrapped: Void = InstrumentationSystem.bootstrap(TaskRoutedTracer())

    static func withTracer<T: Sendable>(_ tracer: W3CInMemoryTracer, _ body: () async throws -> T) async rethrows -> T {
        Self.bootstrapped
        return try await $current.withValue(tracer) { try await body() }
    }

    func startSpan<Instant: TracerInstant>(
        _ operationName: String, context: @autoclosure () -> ServiceContext, ofKind kind: SpanKind,
        at instant: @autoclosure () -> Instant, function: String, file fileID: String, line: UInt
    ) -> InMemorySpan {
        (Self.current?.recorder ?? Self.unrouted)
            .startSpan(operationName, context: context(), ofKind: kind, at: instant(), function: function, file: fileID, line: line)
    }

    func inject<Carrier, Inject: Injector>(_ context: ServiceContext, into carrier: inout Carrier, using injector: Inject)
    where Inject.Carrier == Carrier {
        Self.current?.inject(context, into: &carrier, using: injector)
    }

    func extract<Carrier, Extract: Extractor>(_ carrier: Carrier, into context: inout ServiceContext, using extractor: Extract)
    where Extract.Carrier == Carrier {
        Self.current?.extract(carrier, into: &context, using: extractor)
    }

    func forceFlush() {}
}
