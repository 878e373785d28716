import Courier
import Foundation
import InMemoryTracing
import Testing
import Tracing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Spans of exchanges through sessions, operations and the async API, recorded by swift-distributed-tracing's
/// `InMemoryTracer`: names, kinds, OpenTelemetry HTTP attributes, the logical span's children, error statuses, the
/// caller's span as parent, and the W3C `traceparent` httpbin receives.
@Suite(
    "Tracing",
    .enabled(ExternalServers.httpbin.skipMessage) { await HTTPBinServer.isRunning() }
)
struct TracingTests {
    static func session(_ tracer: W3CInMemoryTracer?, _ configure: (inout SessionConfiguration) -> Void = { _ in }) -> URLSessionManager {
        SessionFixtures.manager {
            if let tracer { $0.telemetry = Telemetry(tracer: tracer) }
            configure(&$0)
        }
    }

    static func httpbin(_ path: String) throws -> URL {
        try #require(URL(string: path, relativeTo: HTTPBinServer.base)?.absoluteURL)
    }

    /// The logical span (the one without a parent in the trace, or the child of `parent`) and its children, in
    /// start order.
    static func logicalSpan(
        in tracer: W3CInMemoryTracer, parent: String? = nil
    ) throws -> (logical: FinishedInMemorySpan, attempts: [FinishedInMemorySpan]) {
        let logical = try #require(tracer.recorder.finishedSpans.first { $0.kind == .internal && $0.parentSpanID == parent })
        let attempts = tracer.spans(inTrace: logical.traceID).filter { $0.parentSpanID == logical.spanID }
        return (logical, attempts)
    }

    @Test func aRedirectedRequestIsOneLogicalSpanWithAClientSpanPerHop() async throws {
        let tracer = W3CInMemoryTracer()
        let session = Self.session(tracer)
        defer { session.invalidateSessionCancelingTasks(true) }
        let url = try Self.httpbin("/redirect/2")
        _ = try await session.data(for: URLRequest(url: url))
        let (logical, attempts) = try Self.logicalSpan(in: tracer)
        #expect(logical.operationName == "GET")
        #expect(logical.attributes.get("http.request.method") == .string("GET"))
        #expect(logical.attributes.get("url.full") == .string(url.absoluteString))
        #expect(logical.attributes.get("http.response.status_code") == .int64(200))
        #expect(logical.status == nil)
        #expect(attempts.count == 3, "\(attempts.map(\.attributes))")
        #expect(attempts.allSatisfy { $0.kind == .client && $0.operationName == "GET" })
        #expect(attempts.map { $0.attributes.get("http.response.status_code") } == [.int64(302), .int64(302), .int64(200)])
        #expect(attempts.map { $0.attributes.get("http.request.resend_count") } == [nil, .int64(1), .int64(2)])
        let last = try #require(attempts.last)
        #expect(last.attributes.get("url.full") == .string(try Self.httpbin("/get").absoluteString))
        #expect(last.attributes.get("server.address") == .string("127.0.0.1"))
        #expect(last.attributes.get("server.port") == .int64(Int64(url.port ?? 0)))
        #expect(last.attributes.get("network.protocol.version") == .string("1.1"))
        #expect(attempts.allSatisfy { $0.status == nil })
    }

    @Test func retriedAttemptsAreChildrenOfOneSpanAndFailedOnesAreMarked() async throws {
        let tracer = W3CInMemoryTracer()
        let session = Self.session(tracer) { $0.interceptors = [RetryPolicy(exponentialBackoffScale: 0.01)] }
        defer { session.invalidateSessionCancelingTasks(true) }
        _ = try await session.data(for: try await SessionFixtures.request("/flaky/2/\(UUID().uuidString)"))
        let (logical, attempts) = try Self.logicalSpan(in: tracer)
        #expect(attempts.map { $0.attributes.get("http.response.status_code") } == [.int64(503), .int64(503), .int64(200)])
        #expect(attempts.map { $0.status?.code } == [.error, .error, nil])
        #expect(attempts.first?.attributes.get("error.type") == .string("503"))
        #expect(logical.status == nil)
        #expect(logical.attributes.get("http.response.status_code") == .int64(200))
    }

    @Test func aFailedRequestRecordsItsErrorOnBothSpans() async throws {
        let tracer = W3CInMemoryTracer()
        let session = Self.session(tracer)
        defer { session.invalidateSessionCancelingTasks(true) }
        await #expect(throws: URLError.self) {
            _ = try await session.data(for: URLRequest(url: try #require(URL(string: "http://ann:pa55-secret@127.0.0.1:1/refused?token=tok-secret"))))
        }
        let (logical, attempts) = try Self.logicalSpan(in: tracer)
        let attempt = try #require(attempts.first)
        #expect(attempts.count == 1)
        for span in [logical, attempt] {
            #expect(span.status?.code == .error)
            #expect(span.attributes.get("error.type") == .string("cannotConnectToHost"))
            #expect(span.errors.count == 1)
            // Exporters write the recorded error's description out: it names the URL without its secrets.
            let recorded = span.errors.map { "\($0.error)" }.joined()
            #expect(recorded.contains("127.0.0.1:1/refused?token=REDACTED"), "\(recorded)")
            #expect(!recorded.contains("pa55-secret") && !recorded.contains("tok-secret"), "\(recorded)")
        }
        #expect(attempt.attributes.get("http.response.status_code") == nil)
    }

    @Test func anErrorStatusMarksTheSpans() async throws {
        let tracer = W3CInMemoryTracer()
        let session = Self.session(tracer)
        defer { session.invalidateSessionCancelingTasks(true) }
        let (_, response) = try await session.data(for: URLRequest(url: try Self.httpbin("/status/503")))
        #expect(response.statusCode == 503)
        let (logical, attempts) = try Self.logicalSpan(in: tracer)
        #expect(logical.status?.code == .error)
        #expect(logical.attributes.get("error.type") == .string("503"))
        #expect(attempts.first?.status?.code == .error)
    }

    @Test func theCallersSpanIsTheParentThroughSessionsAndOperations() async throws {
        let tracer = W3CInMemoryTracer()
        let session = Self.session(tracer)
        defer { session.invalidateSessionCancelingTasks(true) }
        let caller = tracer.startSpan("caller")
        try await ServiceContext.withValue(caller.context) {
            _ = try await session.data(for: URLRequest(url: try Self.httpbin("/get")))
        }
        let manager = HTTPRequestOperationManager()
        manager.telemetry = Telemetry(tracer: tracer)
        manager.responseSerializer = HTTPResponseSerializer()
        // An operation is made where the caller's span is current and started by a queue's thread, where none is.
        let request = URLRequest(url: try Self.httpbin("/anything"))
        let operation = ServiceContext.withValue(caller.context) {
            manager.httpRequestOperation(with: request, success: nil, failure: nil)
        }
        operation.transport = Fixtures.transport
        await OperationFixtures.run([operation])
        caller.end()
        let parent = caller.context.inMemorySpanContext?.spanID
        let logical = tracer.recorder.finishedSpans.filter { $0.kind == .internal && $0.parentSpanID == parent }
        #expect(logical.count == 2, "one for the session's task, one for the operation")
        #expect(logical.allSatisfy { $0.traceID == caller.context.inMemorySpanContext?.traceID })
        let urls = tracer.recorder.finishedSpans.filter { $0.kind == .client }.compactMap { $0.attributes.get("url.full") }
        #expect(urls.contains(.string(try Self.httpbin("/anything").absoluteString)))
    }

    @Test func theBootstrappedTracerInjectsW3CTraceContextThatHTTPBinReceives() async throws {
        let tracer = W3CInMemoryTracer()
        // The default telemetry: InstrumentationSystem's tracer.
        let session = Self.session(nil)
        defer { session.invalidateSessionCancelingTasks(true) }
        let (data, _) = try await TaskRoutedTracer.withTracer(tracer) {
            try await session.data(for: URLRequest(url: try Self.httpbin("/headers")))
        }
        let headers = try #require(try SessionFixtures.json(data)["headers"] as? [String: String])
        let traceparent = try #require(headers["Traceparent"], "\(headers)")
        let parts = traceparent.split(separator: "-").map(String.init)
        #expect(parts.count == 4)
        let (logical, attempts) = try Self.logicalSpan(in: tracer)
        let attempt = try #require(attempts.first)
        #expect(parts == ["00", logical.traceID, attempt.spanID, "01"], "the wire span's context, in the logical span's trace")
        #expect(parts[1].count == 32 && parts[2].count == 16)
    }

    /// AsyncHTTPClient starts a span of its own from the bootstrapped tracer unless told not to, on its event loop
    /// where no caller's context is: a second client span per request, alone in a trace of its own.
    @Test func theEngineStartsNoSpanOfItsOwn() async throws {
        TaskRoutedTracer.bootstrapped
        let tracer = W3CInMemoryTracer()
        let session = Self.session(nil)
        defer { session.invalidateSessionCancelingTasks(true) }
        let probe = UUID().uuidString
        _ = try await TaskRoutedTracer.withTracer(tracer) {
            try await session.data(for: URLRequest(url: try Self.httpbin("/get?probe=\(probe)")))
        }
        let (_, attempts) = try Self.logicalSpan(in: tracer)
        #expect(attempts.count == 1)
        // The engine's span is open until its request ends on the event loop, so open spans count too.
        let unrouted = TaskRoutedTracer.unrouted
        let strays = unrouted.finishedSpans.map(\.attributes) + unrouted.activeSpans.map(\.attributes)
        let mentioningTheProbe = strays.filter { attributes in
            attributes.get("url.query") == .string("probe=\(probe)")
                || attributes.get("url.full").map { "\($0)".contains(probe) } == true
        }
        #expect(mentioningTheProbe.isEmpty, "\(mentioningTheProbe)")
    }

    /// `url.full` carries no credentials and no secret-looking query value, on the logical span and on every attempt.
    @Test func urlFullLeavesSecretsOut() async throws {
        let tracer = W3CInMemoryTracer()
        let session = Self.session(tracer)
        defer { session.invalidateSessionCancelingTasks(true) }
        var components = try #require(URLComponents(url: try Self.httpbin("/get"), resolvingAgainstBaseURL: true))
        components.user = "alice"
        components.password = "pa55word-secret"
        components.queryItems = [URLQueryItem(name: "api_key", value: "key-secret"), URLQueryItem(name: "page", value: "2")]
        _ = try await session.data(for: URLRequest(url: try #require(components.url)))
        let (logical, attempts) = try Self.logicalSpan(in: tracer)
        for span in [logical] + attempts {
            let full = "\(span.attributes.get("url.full").map { "\($0)" } ?? "")"
            #expect(full.contains("/get?api_key=REDACTED&page=2"), "\(full)")
            #expect(!full.contains("pa55word-secret") && !full.contains("alice@") && !full.contains("key-secret"), "\(full)")
        }
    }

    @Test func withoutATracerNothingIsInjected() async throws {
        let session = Self.session(nil)
        defer { session.invalidateSessionCancelingTasks(true) }
        let (data, _) = try await session.data(for: URLRequest(url: try Self.httpbin("/headers")))
        let headers = try #require(try SessionFixtures.json(data)["headers"] as? [String: String])
        #expect(headers["Traceparent"] == nil)
    }

    @Test func aTraceparentTheCallerSetIsReplacedNotDoubled() async throws {
        let tracer = W3CInMemoryTracer()
        let session = Self.session(tracer)
        defer { session.invalidateSessionCancelingTasks(true) }
        var request = URLRequest(url: try Self.httpbin("/headers"))
        request.setValue("00-00000000000000000000000000000001-0000000000000001-01", forHTTPHeaderField: "traceparent")
        let (data, _) = try await session.data(for: request)
        let headers = try #require(try SessionFixtures.json(data)["headers"] as? [String: String])
        let (logical, _) = try Self.logicalSpan(in: tracer)
        #expect(headers["Traceparent"]?.hasPrefix("00-\(logical.traceID)-") == true, "\(headers)")
    }
}
