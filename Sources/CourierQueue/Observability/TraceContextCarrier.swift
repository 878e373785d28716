import Tracing

/// The enqueuer's trace context as text fields (W3C `traceparent`/`tracestate` with a W3C instrument), stored with
/// the job so that every attempt's span can link to the span that enqueued it, in whatever process runs it.
enum TraceContextCarrier {
    /// The current task's context as fields; empty when there is none or no instrument is bootstrapped.
    static func current() -> [String: String] {
        guard let context = ServiceContext.current else { return [:] }
        var fields: [String: String] = [:]
        InstrumentationSystem.instrument.inject(context, into: &fields, using: FieldInjector())
        return fields
    }

    /// The context `fields` describe.
    static func context(from fields: [String: String]) -> ServiceContext {
        var context = ServiceContext.topLevel
        InstrumentationSystem.instrument.extract(fields, into: &context, using: FieldExtractor())
        return context
    }

    private struct FieldInjector: Injector {
        func inject(_ value: String, forKey key: String, into carrier: inout [String: String]) {
            carrier[key] = value
        }
    }

    private struct FieldExtractor: Extractor {
        func extract(key: String, from carrier: [String: String]) -> String? {
            carrier[key]
        }
    }
}
