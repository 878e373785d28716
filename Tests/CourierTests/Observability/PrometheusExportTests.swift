#if canImport(Prometheus)
import Courier
import Foundation
import Prometheus
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Issue #37, item 4 (its Prometheus half): Courier's measurements recorded by swift-prometheus (the Swift Server
/// Work Group's swift-metrics backend), emitted in Prometheus's text exposition format and read back by
/// prometheus-client's parser (the Prometheus project's Python client, from PyPI: scripts/prometheus-parse). The
/// requests go to nginx over HTTP/2 and HTTP/1.1, so every series a user's dashboard would chart is there with the
/// OpenTelemetry HTTP client conventions' names, as Prometheus writes them (dots become underscores).
@Suite(
    "Metrics in Prometheus's text format (swift-prometheus, read by prometheus-client)",
    .enabled(NginxServer.skipMessage) { await NginxInterop.isRunning() },
    .serialized,
    .timeLimit(.minutes(5))
)
struct PrometheusExportTests {
    /// One metric family as prometheus-client's parser reads it.
    struct Family: Decodable {
        struct Sample: Decodable {
            let name: String
            let labels: [String: String]
            let value: Double
        }

        let name: String
        let type: String
        let samples: [Sample]

        /// The value of the sample named `name` whose labels hold every pair of `labels` (and no other label when
        /// `exactly`); `nil` when no sample matches, the sum when several do.
        func value(_ name: String, _ labels: [String: String], exactly: Bool = true) -> Double? {
            let matching = samples.filter { sample in
                sample.name == name && (exactly ? sample.labels == labels : labels.allSatisfy { sample.labels[$0.key] == $0.value })
            }
            return matching.isEmpty ? nil : matching.map(\.value).reduce(0, +)
        }
    }

    /// `text` read by prometheus-client's parser; the test fails when the parser refuses it.
    static func parse(_ text: String) async throws -> [String: Family] {
        let file = Fixtures.temporaryFile("metrics.prom")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data(text.utf8).write(to: file)
        // The first run makes the parser's virtualenv (pip from PyPI).
        let outcome = try await ShellCommand.run("'\(ExternalServers.scripts)/prometheus-parse' < '\(file.path)'", timeout: .seconds(300))
        try #require(outcome.status == 0, "prometheus-client's parser refused the exposition: \(outcome.standardError)\n\(text.prefix(2_000))")
        let families = try JSONDecoder().decode([Family].self, from: outcome.standardOutput)
        return Dictionary(families.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
    }

    @Test("requests over HTTP/2 and HTTP/1.1, a 404, a refused POST and a refused connection, as a scrape shows them")
    func aScrapeShowsEveryRequestByTheConventions() async throws {
        let registry = PrometheusCollectorRegistry()
        let telemetry = Telemetry(metricsFactory: PrometheusMetricsFactory(registry: registry), labelsMetricsWithHost: true)
        let overHTTP2 = try NginxInterop.sessionManager { $0.telemetry = telemetry }
        let overHTTP1 = try NginxInterop.sessionManager {
            $0.telemetry = telemetry
            $0.httpVersion = .http1Only
        }
        let hello = try NginxInterop.request("hello.txt")
        let port = String(try #require(hello.url?.port))
        let started = ContinuousClock.now
        // A query of its own for each GET: nginx's Last-Modified makes the file fresh for a while, and a cache hit
        // would be measured with the first answer's protocol.
        let fresh = { try NginxInterop.request("hello.txt", probe: NginxInterop.probe()) }
        var bodyBytes = 0
        for _ in 0..<3 { bodyBytes += try await overHTTP2.data(for: try fresh()).0.count }
        for _ in 0..<2 { bodyBytes += try await overHTTP1.data(for: try fresh()).0.count }
        let (missingPage, missing) = try await overHTTP2.data(for: try NginxInterop.request("no-such-file.txt"))
        bodyBytes += missingPage.count
        #expect(missing.statusCode == 404)
        var post = hello
        post.httpMethod = "POST"
        post.httpBody = Data("0123456789".utf8)
        // nginx serves static files to GET and HEAD only: 405.
        let (_, refused) = try await overHTTP2.data(for: post)
        #expect(refused.statusCode == 405)
        await #expect(throws: (any Error).self) {
            _ = try await overHTTP2.data(for: URLRequest(url: try #require(URL(string: "http://127.0.0.1:1/refused"))))
        }
        let elapsed = ContinuousClock.now - started

        // Closed connections record their durations: wait for both versions' before the scrape.
        overHTTP2.invalidateSessionCancelingTasks(true)
        overHTTP1.invalidateSessionCancelingTasks(true)
        #expect(await eventually {
            let text = registry.emitToString()
            return ["2", "1.1"].allSatisfy { text.contains("http_client_open_connections{network_protocol_version=\"\($0)\"} 0") }
        }, "\(registry.emitToString())")

        let families = try await Self.parse(registry.emitToString())
        let nginx = ["url_scheme": "https", "server_address": "127.0.0.1", "server_port": port]
        let get = nginx.merging(["http_request_method": "GET"]) { $1 }

        let duration = try #require(families["http_client_request_duration"], "\(families.keys.sorted())")
        #expect(duration.type == "histogram")
        let overTwo = get.merging(["http_response_status_code": "200", "network_protocol_version": "2"]) { $1 }
        let overOne = get.merging(["http_response_status_code": "200", "network_protocol_version": "1.1"]) { $1 }
        let notFound = get.merging(["http_response_status_code": "404", "error_type": "404", "network_protocol_version": "2"]) { $1 }
        let notAllowed = nginx.merging([
            "http_request_method": "POST", "http_response_status_code": "405", "error_type": "405", "network_protocol_version": "2",
        ]) { $1 }
        let unreachable = [
            "http_request_method": "GET", "url_scheme": "http", "server_address": "127.0.0.1", "server_port": "1",
            "error_type": "cannotConnectToHost",
        ]
        for (labels, count) in [(overTwo, 3.0), (overOne, 2), (notFound, 1), (notAllowed, 1), (unreachable, 1)] {
            #expect(duration.value("http_client_request_duration_count", labels) == count, "\(labels): \(duration.samples.filter { $0.name.hasSuffix("_count") })")
            // Every request falls in the last bucket; the sum is seconds, inside the time the requests took.
            #expect(duration.value("http_client_request_duration_bucket", labels.merging(["le": "+Inf"]) { $1 }) == count)
            let sum = try #require(duration.value("http_client_request_duration_sum", labels))
            #expect(sum > 0 && sum <= Double(elapsed.components.seconds + 1), "\(labels): \(sum) s")
        }
        #expect(duration.samples.filter { $0.name == "http_client_request_duration_count" }.map(\.value).reduce(0, +) == 8)

        let active = try #require(families["http_client_active_requests"])
        #expect(active.type == "gauge")
        #expect(!active.samples.isEmpty && active.samples.allSatisfy { $0.value == 0 }, "\(active.samples)")

        let sent = try #require(families["http_client_request_body_size"])
        #expect(sent.value("http_client_request_body_size_sum", nginx.merging(["http_request_method": "POST"]) { $1 }) == 10)
        let received = try #require(families["http_client_response_body_size"])
        // The GETs to nginx, over both versions, whatever their status: the size's dimensions are the request's.
        #expect(received.value("http_client_response_body_size_count", get) == 6)
        #expect(received.value("http_client_response_body_size_sum", get) == Double(bodyBytes))

        let open = try #require(families["http_client_open_connections"])
        #expect(open.type == "gauge")
        #expect(open.value("http_client_open_connections", ["network_protocol_version": "2"]) == 0)
        #expect(open.value("http_client_open_connections", ["network_protocol_version": "1.1"]) == 0)
        let connections = try #require(families["http_client_connection_duration"])
        for version in ["2", "1.1"] {
            let count = connections.value("http_client_connection_duration_count", ["network_protocol_version": version]) ?? 0
            #expect(count >= 1, "HTTP/\(version): \(connections.samples)")
        }

        #expect(families["courier_http_client_cache_hits"] == nil, "every request went to nginx")
        let errors = try #require(families["courier_http_client_errors"] ?? families["courier_http_client_errors_total"], "\(families.keys.sorted())")
        #expect(errors.type == "counter")
        #expect(errors.samples.map(\.value).reduce(0, +) == 1)
        #expect(errors.samples.first?.labels["error_type"] == "cannotConnectToHost")
    }
}
#endif
