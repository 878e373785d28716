import Courier
import Foundation
import Logging
import OTel
import ServiceLifecycle
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Sends two requests through Courier with swift-otel bootstrapped as the process's tracer and metrics backend,
/// exporting over OTLP/HTTP (protobuf) to a collector, then shuts the exporters down gracefully, which exports what
/// is left. scripts/otlp-roundtrip runs it against nginx and a receiver built on `opentelemetry-proto`.
///
///     courier-otlp-probe BASE_URL CA_FILE COLLECTOR_URL
///
/// BASE_URL is nginx's (scripts/nginx-test-server), CA_FILE the root it is signed with, COLLECTOR_URL the receiver's
/// `http://127.0.0.1:PORT`. Prints each request's path and status.
@main
struct OTLPProbe {
    static func main() async throws {
        let arguments = CommandLine.arguments
        guard arguments.count == 4, let base = URL(string: arguments[1]) else {
            FileHandle.standardError.write(Data("usage: courier-otlp-probe BASE_URL CA_FILE COLLECTOR_URL\n".utf8))
            exit(2)
        }
        let collector = arguments[3]
        var configuration = OTel.Configuration.default
        configuration.serviceName = "courier-otlp-probe"
        configuration.logs.enabled = false
        configuration.traces.sampler = .alwaysOn
        configuration.traces.otlpExporter.protocol = .httpProtobuf
        configuration.traces.otlpExporter.endpoint = collector + "/v1/traces"
        configuration.traces.batchSpanProcessor.scheduleDelay = .milliseconds(100)
        configuration.metrics.otlpExporter.protocol = .httpProtobuf
        configuration.metrics.otlpExporter.endpoint = collector + "/v1/metrics"
        configuration.metrics.exportInterval = .milliseconds(200)
        let observability = try OTel.bootstrap(configuration: configuration)

        let probe = Requests(base: base, certificateAuthority: URL(fileURLWithPath: arguments[2]))
        let group = ServiceGroup(configuration: ServiceGroupConfiguration(
            services: [
                .init(service: observability),
                // The requests done, the group shuts down gracefully: the exporters send what they hold, then end.
                .init(service: probe, successTerminationBehavior: .gracefullyShutdownGroup),
            ],
            logger: Logger(label: "courier-otlp-probe")
        ))
        try await group.run()
    }
}

/// The requests: one answered 200, one 404 (an `error.type` on the duration and the span).
struct Requests: Service {
    let base: URL
    let certificateAuthority: URL

    func run() async throws {
        let policy = SecurityPolicy.default
        policy.trustedRootCertificates = Set(try SecurityPolicy.certificates(contentsOf: certificateAuthority))
        var configuration = SessionConfiguration.ephemeral
        configuration.securityPolicy = policy
        let session = URLSessionManager(configuration: configuration)
        defer { session.invalidateSessionCancelingTasks(true) }
        for path in ["/hello.txt?otlp=found", "/otlp-missing.txt?otlp=absent"] {
            guard let url = URL(string: base.absoluteString + path) else { continue }
            let (_, response) = try await session.data(for: URLRequest(url: url))
            print(path, response.statusCode)
        }
    }
}
