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
/// Endpoints (JSON shapes follow httpbin; bad input gives 400 with `{"error":{"message":...}}`):
/// - Echo: `/get`, `/post`, `/put`, `/patch`, `/delete`, `/anything[/...]` (any method) report `args`,
///   `headers`, `origin`, `url`, and for bodies `data`, `form`, `json`, `files` (name → filename,
///   content type, size, SHA-256), `body_size`, `body_sha256`; `/headers`, `/user-agent`, `/ip`;
///   `/echo` streams the request body back.
/// - Status and redirects: `/status/:codes` (`200,201` or weighted `200:9,500:1`), `/redirect/:n`
///   (`?absolute=true`), `/relative-redirect/:n`, `/absolute-redirect/:n`, `/redirect-to?url=&status_code=` (any method).
/// - Auth: `/basic-auth/:user/:passwd`, `/hidden-basic-auth/:user/:passwd`, `/bearer`,
///   `/digest-auth/:qop/:user/:passwd[/:algorithm[/:stale_after]]` (MD5, SHA-256, SHA-512, `-sess`).
/// - Bodies: `/bytes/:n?seed=` (see ``TestPayload/bytes(count:seed:)``), `/stream-bytes/:n?seed=&chunk_size=`,
///   `/range/:n` (`?etag=`, `?ignore_range=1`; see ``TestPayload/rangeContent(count:)``), `/upload` (multipart,
///   streamed), `/drip?duration=&numbytes=&delay=&code=`, `/delay/:n`, `/slow-body/:n?delay=`,
///   `/abort/:n?total=` (closes the connection after `n` of `total` bytes), `/download/:n?seed=&etag=&ignore_range=&digest=repr|md5|both&wrong_digest=&rate=&abort_after=`
///   (resumable, with `Repr-Digest`/`Content-MD5` and throttling; see `DownloadRoutes`).
/// - Caching: `/etag/:etag`, `/cache`, `/cache/:n`, `/response-headers?name=value`.
/// - Cookies: `/cookies`, `/cookies/set?name=value`, `/cookies/set/:name/:value`, `/cookies/delete?name`,
///   `/cookies/set-attrs?name=&value=&path=&domain=&max_age=&expires=&secure=&httponly=&samesite=`.
/// - Formats: `/json`, `/xml`, `/html`, `/encoding/utf8`, `/image` (by `Accept`), `/image/png|jpeg|gif|svg`,
///   `/gzip`, `/deflate`.
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
        // Written unbuffered, so scripts reading a pipe see the address at once.
        FileHandle.standardOutput.write(Data("CourierTestServer listening on \(server.baseURL.absoluteString)\n".utf8))
        if let authority = server.certificateAuthorityDER {
            let path = FileManager.default.temporaryDirectory.appendingPathComponent("courier-test-ca-\(server.port).der")
            try authority.write(to: path)
            FileHandle.standardOutput.write(Data("Certificate authority (DER): \(path.path)\n".utf8))
        }
        try await withTaskCancellationHandler {
            try await server.task.value
        } onCancel: {
            server.task.cancel()
        }
    }

    /// A server that is no longer referenced stops (without waiting); prefer ``shutdown()``.
    deinit {
        task.cancel()
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
        let http1 = HTTP1Channel.Configuration(additionalChannelHandlers: [ExpectContinueHandler()])
        switch resolvedTLS {
        case nil:
            serverBuilder = .http1(configuration: http1)
        case let resolved? where resolved.http2:
            serverBuilder = try .http2Upgrade(tlsConfiguration: resolved.configuration, configuration: .init(streamConfiguration: http1))
        case let resolved?:
            serverBuilder = try .tls(.http1(configuration: http1), tlsConfiguration: resolved.configuration)
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
