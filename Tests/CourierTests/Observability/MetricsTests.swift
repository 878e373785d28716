import Courier
import Foundation
import Metrics
import MetricsTestKit
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// swift-metrics measurements of a known sequence of requests, recorded by `MetricsTestKit`'s `TestMetrics`: the
/// duration by method and status class, active requests, body sizes, errors by `URLError` code, retries and cache
/// hits, through sessions and operations.
@Suite(
    "Metrics",
    .enabled(ExternalServers.httpbin.skipMessage) { await HTTPBinServer.isRunning() }
)
struct MetricsTests {
    static func httpbin(_ path: String) throws -> URL {
        try #require(URL(string: path, relativeTo: HTTPBinServer.base)?.absoluteURL)
    }

    /// Whether `dimensions` hold every pair in `expected` (and nothing else when `exactly`).
    static func has(_ dimensions: [(String, String)], _ expected: [String: String], exactly: Bool = true) -> Bool {
        let actual = Dictionary(dimensions, uniquingKeysWith: { first, _ in first })
        return exactly ? actual == expected : expected.allSatisfy { actual[$0.key] == $0.value }
    }

    static func durations(_ metrics: TestMetrics, _ dimensions: [String: String]) -> Int {
        metrics.timers(label: "http.client.request.duration").filter { has($0.dimensions, dimensions) }.map(\.values.count).reduce(0, +)
    }

    @Test func aKnownSequenceOfRequestsIsMeasured() async throws {
        let metrics = TestMetrics()
        let session = SessionFixtures.manager {
            $0.telemetry = Telemetry(metricsFactory: metrics)
            $0.interceptors = [RetryPolicy(exponentialBackoffScale: 0.01)]
        }
        defer { session.invalidateSessionCancelingTasks(true) }
        var received: [Int] = []
        for _ in 0..<2 {
            received.append(try await session.data(for: URLRequest(url: try Self.httpbin("/get"))).0.count)
        }
        _ = try await session.data(for: URLRequest(url: try Self.httpbin("/status/404")))
        var post = URLRequest(url: try Self.httpbin("/post"))
        post.httpMethod = "POST"
        post.httpBody = Data("0123456789".utf8)
        _ = try await session.data(for: post)
        _ = try? await session.data(for: URLRequest(url: try #require(URL(string: "http://127.0.0.1:1/refused"))))
        _ = try await session.data(for: try await SessionFixtures.request("/flaky/1/\(UUID().uuidString)"))

        let get = ["http.request.method": "GET", "url.scheme": "http"]
        // OpenTelemetry's HTTP client conventions: the status code, the protocol version, and for a failure or a
        // status of 400 or more, `error.type`.
        let answered = get.merging(["http.response.status_code": "200", "network.protocol.version": "1.1"]) { $1 }
        #expect(Self.durations(metrics, answered) == 3)
        #expect(Self.durations(metrics, get.merging(["http.response.status_code": "404", "error.type": "404", "network.protocol.version": "1.1"]) { $1 }) == 1)
        #expect(Self.durations(metrics, get.merging(["error.type": "cannotConnectToHost"]) { $1 }) == 1)
        #expect(Self.durations(metrics, ["http.request.method": "POST", "url.scheme": "http", "http.response.status_code": "200", "network.protocol.version": "1.1"]) == 1)
        #expect(metrics.timers(label: "http.client.request.duration").flatMap(\.values).allSatisfy { $0 > 0 })

        let errors = metrics.counters(label: "courier.http.client.errors")
        #expect(errors.count == 1)
        #expect(errors.first.map { Self.has($0.dimensions, get.merging(["error.type": "cannotConnectToHost"]) { $1 }) } == true)
        #expect(errors.first?.totalValue == 1)

        // The refused connection was tried again twice (RetryPolicy's default limit), the flaky route once.
        let retries = metrics.counters(label: "courier.http.client.retries")
        #expect(retries.map(\.totalValue) == [3])

        let active = try #require(metrics.meters(label: "http.client.active_requests").first { Self.has($0.dimensions, get) })
        #expect(active.values.max() == 1, "one request at a time")
        #expect(active.lastValue == 0)

        let sent = try #require(metrics.recorders(label: "http.client.request.body.size").first { Self.has($0.dimensions, ["http.request.method": "POST", "url.scheme": "http"]) })
        #expect(sent.values == [10])
        let responses = try #require(metrics.recorders(label: "http.client.response.body.size").first { Self.has($0.dimensions, get) })
        #expect(Array(responses.values.prefix(2)) == received.map(Double.init))
        #expect(metrics.counters(label: "courier.http.client.cache_hits").isEmpty)
    }

    @Test func cacheHitsAreCountedAndHostsLabelledWhenAskedFor() async throws {
        let metrics = TestMetrics()
        var configuration = SessionConfiguration.ephemeral
        configuration.transport = Fixtures.transport
        configuration.telemetry = Telemetry(metricsFactory: metrics, labelsMetricsWithHost: true)
        let session = URLSessionManager(configuration: configuration)
        defer { session.invalidateSessionCancelingTasks(true) }
        let url = try Self.httpbin("/cache/60?probe=\(UUID().uuidString)")
        let port = String(try #require(url.port))
        _ = try await session.data(for: URLRequest(url: url))
        _ = try await session.data(for: URLRequest(url: url))
        let hits = metrics.counters(label: "courier.http.client.cache_hits")
        #expect(hits.count == 1)
        #expect(hits.first.map {
            Self.has($0.dimensions, ["http.request.method": "GET", "url.scheme": "http", "server.address": "127.0.0.1", "server.port": port, "courier.cache.result": "fresh"])
        } == true)
        #expect(hits.first?.totalValue == 1)
        // The second answer never went on the wire: it is a cache hit, not an HTTP request's duration or sizes.
        #expect(Self.durations(metrics, [
            "http.request.method": "GET", "url.scheme": "http", "server.address": "127.0.0.1", "server.port": port,
            "http.response.status_code": "200", "network.protocol.version": "1.1",
        ]) == 1)
        #expect(metrics.timers(label: "http.client.request.duration").flatMap(\.values).count == 1)
        #expect(metrics.recorders(label: "http.client.response.body.size").flatMap(\.values).count == 1)
        #expect(metrics.recorders(label: "http.client.request.body.size").flatMap(\.values).count == 1)
    }

    @Test func operationsAreMeasuredThroughTheirManager() async throws {
        let metrics = TestMetrics()
        let manager = HTTPRequestOperationManager()
        manager.telemetry = Telemetry(metricsFactory: metrics)
        manager.responseSerializer = HTTPResponseSerializer()
        let operation = manager.httpRequestOperation(with: URLRequest(url: try Self.httpbin("/status/500")), success: nil, failure: nil)
        operation.transport = Fixtures.transport
        await OperationFixtures.run([operation])
        #expect(Self.durations(metrics, [
            "http.request.method": "GET", "url.scheme": "http", "http.response.status_code": "500", "error.type": "500", "network.protocol.version": "1.1",
        ]) == 1)
    }

    /// Connections, not requests: httpbin (gunicorn) answers four concurrent requests over HTTP/1.1 connections of
    /// their own, which the meter counts while they are open; when the session ends they close, the meter is back at
    /// zero and each has a duration.
    @Test func openConnectionsAreCountedUntilTheyClose() async throws {
        let metrics = TestMetrics()
        // A transport of the session's own (the fixtures' shared one is not the session's to measure or shut down).
        let session = SessionFixtures.manager {
            $0.transport = nil
            $0.telemetry = Telemetry(metricsFactory: metrics)
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<4 {
                group.addTask { _ = try await session.data(for: URLRequest(url: try Self.httpbin("/delay/0.3"))) }
            }
            try await group.waitForAll()
        }
        let meters = metrics.meters(label: "http.client.open_connections")
        #expect(meters.count == 1, "HTTP/1.1 only: no series for a version no connection spoke")
        let open = try #require(meters.first { Self.has($0.dimensions, ["network.protocol.version": "1.1"]) })
        // Each new connection raised the running count by one.
        let values = open.values
        let opened = zip([0] + values, values).filter { $1 > $0 }.count
        #expect(opened >= 1 && opened <= 4, "\(values)")
        #expect(values.max().map { $0 >= 1 } == true, "\(values)")

        session.invalidateSessionCancelingTasks(true)
        #expect(await eventually { open.lastValue == 0 }, "\(open.values)")
        let durations = metrics.timers(label: "http.client.connection.duration").flatMap(\.values)
        #expect(durations.count == opened)
        #expect(durations.allSatisfy { $0 > 0 })
    }

    @Test func withNothingBootstrappedNothingIsMade() {
        // The default factory is swift-metrics' no-op one in this process (no test bootstraps MetricsSystem).
        #expect(MetricsSystem.factory is NOOPMetricsHandler)
        #expect(Telemetry.bootstrapped.metricsFactory == nil)
    }
}
