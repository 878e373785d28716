import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdHTTP2
import HummingbirdTLS
import Logging
import NIOConcurrencyHelpers
import NIOCore

/// An in-process, httpbin-compatible HTTP(S) server for tests, benchmarks and `courier serve`.
///
/// ```swift
/// let server = try await TestServer.start()
/// defer { Task { try await server.shutdown() } }
/// let url = server.baseURL.appendingPathComponent("get")
/// ```
public final class TestServer: Sendable {
    /// The TCP port the server is bound to (the real one when started with port 0).
    public let port: Int
    /// `http://127.0.0.1:PORT` or `https://127.0.0.1:PORT` (the host it was started on).
    public let baseURL: URL
    /// DER of the certificate authority that issued the TLS leaf; `nil` for plain HTTP or a self-signed leaf.
    public let certificateAuthorityDER: Data?
    /// DER of the leaf certificate the server presents; `nil` for plain HTTP.
    public let leafCertificateDER: Data?
    /// Every request the server has received, recorded before routing.
    public let requestLog: RequestLog

    private let task: Task<Void, any Error>

    private init(
        port: Int,
        baseURL: URL,
        certificateAuthorityDER: Data?,
        leafCertificateDER: Data?,
        requestLog: RequestLog,
        task: Task<Void, any Error>
    ) {
        self.port = port
        self.baseURL = baseURL
        self.certificateAuthorityDER = certificateAuthorityDER
        self.leafCertificateDER = leafCertificateDER
        self.requestLog = requestLog
        self.task = task
    }

    /// Starts a server in the background and returns once it accepts connections.
    ///
    /// - Parameters:
    ///   - tls: serve HTTPS (HTTP/2 and HTTP/1.1) with a CA and leaf generated at start-up
    ///     (see ``certificateAuthorityDER``).
    ///   - host: the address to bind, `127.0.0.1` by default.
    ///   - port: the port to bind; `0` picks a free ephemeral port (see ``port``).
    public static func start(tls: Bool = false, host: String = "127.0.0.1", port: Int = 0) async throws -> TestServer {
        try await launch(tls: tls ? .generated : nil, host: host, port: port, logLevel: .critical)
    }

    /// Starts an HTTPS server with the given TLS set-up (custom chains, mutual TLS, HTTP/1.1 only).
    ///
    /// - Parameters:
    ///   - tls: the certificate chain to present and the client certificates to require.
    ///   - host: the address to bind, `127.0.0.1` by default.
    ///   - port: the port to bind; `0` picks a free ephemeral port (see ``port``).
    public static func start(tls: TestServerTLS, host: String = "127.0.0.1", port: Int = 0) async throws -> TestServer {
        try await launch(tls: tls, host: host, port: port, logLevel: .critical)
    }

    /// Runs a server in the foreground until the task is cancelled (for `courier serve`).
    ///
    /// With `tls`, the generated CA is written to a temporary file whose path is printed, so
    /// clients can trust it.
    public static func run(host: String, port: Int, tls: Bool) async throws {
        let server = try await launch(tls: tls ? .generated : nil, host: host, port: port, logLevel: .info)
        print("CourierTestServer listening on \(server.baseURL.absoluteString)")
        if let authority = server.certificateAuthorityDER {
            let path = FileManager.default.temporaryDirectory.appendingPathComponent("courier-test-ca-\(server.port).der")
            try authority.write(to: path)
            print("Certificate authority (DER): \(path.path)")
        }
        try await withTaskCancellationHandler {
            try await server.task.value
        } onCancel: {
            server.task.cancel()
        }
    }

    /// Stops accepting connections, closes the open ones and waits until the port is released.
    public func shutdown() async throws {
        task.cancel()
        do {
            try await task.value
        } catch is CancellationError {
            // Expected: the server task was cancelled.
        }
    }

    private static func launch(tls: TestServerTLS?, host: String, port: Int, logLevel: Logger.Level) async throws -> TestServer {
        var logger = Logger(label: "CourierTestServer")
        logger.logLevel = ProcessInfo.processInfo.environment["COURIER_TEST_SERVER_LOG"].flatMap { Logger.Level(rawValue: $0) } ?? logLevel
        let log = RequestLog()
        let resolvedTLS = try tls.map(ResolvedTLS.init)
        let environment = RouteEnvironment(scheme: resolvedTLS == nil ? "http" : "https", digestNonces: DigestNonceStore())
        let router = RouteTable.makeRouter(environment: environment, log: log)
        let (ports, portContinuation) = AsyncStream<Int>.makeStream()
        let serverBuilder: HTTPServerBuilder
        switch resolvedTLS {
        case nil:
            serverBuilder = .http1()
        case let resolved? where resolved.http2:
            serverBuilder = try .http2Upgrade(tlsConfiguration: resolved.configuration)
        case let resolved?:
            serverBuilder = try .tls(.http1(), tlsConfiguration: resolved.configuration)
        }
        let app = Application(
            router: router,
            server: serverBuilder,
            configuration: .init(address: .hostname(host, port: port), serverName: "CourierTestServer"),
            onServerRunning: { channel in
                portContinuation.yield(channel.localAddress?.port ?? 0)
                portContinuation.finish()
            },
            logger: logger
        )
        let task = Task {
            defer { portContinuation.finish() }
            try await app.run()
        }
        var iterator = ports.makeAsyncIterator()
        guard let boundPort = await iterator.next() else {
            // The server stopped before it was running: surface its error.
            try await task.value
            throw TestServerError.didNotStart
        }
        let authority = host.contains(":") ? "[\(host)]:\(boundPort)" : "\(host):\(boundPort)"
        guard let baseURL = URL(string: "\(environment.scheme)://\(authority)") else {
            task.cancel()
            throw TestServerError.didNotStart
        }
        return TestServer(
            port: boundPort,
            baseURL: baseURL,
            certificateAuthorityDER: resolvedTLS?.certificateAuthorityDER,
            leafCertificateDER: resolvedTLS?.leafCertificateDER,
            requestLog: log,
            task: task
        )
    }
}

/// Errors thrown by ``TestServer``.
public enum TestServerError: Error, Sendable {
    /// The server stopped before it started listening.
    case didNotStart
    /// A custom TLS identity had no certificate.
    case emptyCertificateChain
}
