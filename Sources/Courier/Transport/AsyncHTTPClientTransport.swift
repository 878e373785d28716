import AsyncHTTPClient
import Foundation
import NIOCore
import NIOFoundationCompat
import NIOHTTP1
import NIOPosix
import NIOSSL
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Courier's default transport: AsyncHTTPClient on SwiftNIO.
///
/// HTTP/1.1 and HTTP/2, redirects disabled (the exchange follows them), connection establishment
/// not retried (failures are reported at once, as URLSession does). HTTPS connections are checked by
/// the configuration's ``Configuration/securityPolicy`` (or the host's entry in
/// ``Configuration/securityPolicies``) during the TLS handshake, before any request byte is sent.
///
/// Connections are pooled per security policy and host (one AsyncHTTPClient `HTTPClient` each, made on
/// first use, all on NIO's shared event loops): two policies never share a connection. Call
/// ``shutdown()`` when done; a transport released without it shuts its clients down in the background.
public final class AsyncHTTPClientTransport: HTTPTransport {
    private let clients: EngineClientPool
    private let threadPool: NIOThreadPool

    /// The configuration the transport was created with.
    public let configuration: Configuration

    /// Creates a transport with its own connection pool on NIO's shared event loops.
    /// - Parameter configuration: Timeouts, connection limits, HTTP version and TLS. Default `.init()`.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        self.threadPool = NIOThreadPool.singleton
        self.clients = EngineClientPool(configuration: configuration, eventLoopGroup: MultiThreadedEventLoopGroup.singleton)
    }

    deinit {
        clients.shutdownInBackground()
    }

    /// Cancels requests in flight and closes every connection of every pool. Calling it twice is harmless.
    public func shutdown() async throws {
        try await clients.shutdown()
    }

    /// Sends one request (see ``HTTPTransport/send(_:)``).
    public func send(_ request: TransportRequest) async throws -> TransportResponse {
        let url = request.url
        let engineRequest: HTTPClient.Request
        let client: EngineClientPool.EngineClient
        let fileRegions = FileRegionLease()
        do {
            (engineRequest, client) = try makeEngineRequest(request, fileRegions: fileRegions)
        } catch {
            throw TransportError.urlError(for: error, url: url)
        }
        try Task.checkCancellation()

        let connections = client.connections
        let ticket = connections.begin()
        let delegate = StreamingResponseDelegate(didSendBodyBytes: request.didSendBodyBytes) {
            connections.headSent(ticket)
        }
        let task = client.client.execute(request: engineRequest, delegate: delegate, deadline: nil)
        delegate.attach(task)
        task.futureResult.whenComplete { _ in fileRegions.requestEnded() }
        if request.timeoutInterval > 0 {
            let watchdog = IdleTimeoutWatchdog(
                timeout: .nanoseconds(Int64(request.timeoutInterval * 1_000_000_000)),
                eventLoop: task.eventLoop
            ) { [weak delegate] in
                delegate?.fail(with: URLError(.timedOut, userInfo: [
                    NSURLErrorFailingURLErrorKey: url,
                    NSLocalizedDescriptionKey: "The request timed out after \(request.timeoutInterval) s without data.",
                ]))
            }
            delegate.watchdog.withLock { $0 = watchdog }
        }

        let head: HTTPResponseHead
        do {
            head = try await withTaskCancellationHandler {
                try await delegate.head()
            } onCancel: {
                delegate.cancel()
            }
        } catch {
            _ = connections.finish(ticket)
            throw TransportError.urlError(for: error, url: url)
        }
        let connection = connections.finish(ticket)
        let version = "HTTP/\(head.version.major).\(head.version.minor)"
        guard let response = HTTPURLResponse(
            url: url,
            statusCode: Int(head.status.code),
            httpVersion: version,
            headerFields: Self.headerDictionary(head.headers)
        ) else {
            delegate.cancel()
            throw URLError(.badServerResponse, userInfo: [NSURLErrorFailingURLErrorKey: url])
        }
        let body = ResponseBodyStream(EngineBody(producer: delegate.body, url: url)) { delegate.cancel() }
        return TransportResponse(
            head: response, headerFields: head.headers.map { ($0.name, $0.value) }, body: body, httpVersion: version,
            connection: connection
        )
    }

    /// The engine's request, and the client (connection pool) that must carry it.
    private func makeEngineRequest(
        _ request: TransportRequest, fileRegions: FileRegionLease
    ) throws -> (HTTPClient.Request, EngineClientPool.EngineClient) {
        guard let scheme = request.url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw URLError(.unsupportedURL, userInfo: [
                NSURLErrorFailingURLErrorKey: request.url,
                NSLocalizedDescriptionKey: "Unsupported URL scheme \(request.url.scheme.map { "\"\($0)\"" } ?? "(none)"); Courier speaks http and https.",
            ])
        }
        guard let host = request.url.host, !host.isEmpty else {
            throw URLError(.badURL, userInfo: [
                NSURLErrorFailingURLErrorKey: request.url,
                NSLocalizedDescriptionKey: "The URL has no host.",
            ])
        }
        let client = scheme == "https" ? try clients.client(forHTTPSHost: host) : clients.plainClient
        var headers = HTTPHeaders()
        headers.reserveCapacity(request.headers.count)
        for (name, value) in request.headers {
            // The engine derives the framing from the body; a caller's own framing headers would conflict.
            if name.isHeaderName("Content-Length") || name.isHeaderName("Transfer-Encoding") {
                continue
            }
            headers.add(name: name, value: value)
        }
        let body = request.body.map { body in
            let threadPool = self.threadPool
            let loop = clients.eventLoopGroup.any()
            // Plain HTTP is always HTTP/1.1 on a bare socket: files can go with sendfile(2).
            let lease = scheme == "http" ? fileRegions : nil
            return HTTPClient.Body.stream(contentLength: body.length) { writer in
                loop.makeFutureWithTask {
                    try await RequestBodyPump.pump(body, into: writer, threadPool: threadPool, fileRegions: lease)
                }
            }
        }
        let engineRequest = try HTTPClient.Request(
            url: request.url,
            method: HTTPMethod(rawValue: request.method.uppercased()),
            headers: headers,
            body: body
        )
        return (engineRequest, client)
    }

    private static func headerDictionary(_ headers: HTTPHeaders) -> [String: String] {
        var fields = [String: String](minimumCapacity: headers.count)
        for (name, value) in headers {
            if let existing = fields[name] {
                fields[name] = existing + ", " + value
            } else {
                fields[name] = value
            }
        }
        return fields
    }
}

/// The engine's backpressured body, as `Data` chunks with errors mapped to `URLError`.
private struct EngineBody: AsyncSequence, Sendable {
    let producer: StreamingResponseDelegate.BodyProducer
    let url: URL

    func makeAsyncIterator() -> Iterator {
        Iterator(base: producer.makeAsyncIterator(), url: url)
    }

    struct Iterator: AsyncIteratorProtocol {
        var base: StreamingResponseDelegate.BodyProducer.AsyncIterator
        let url: URL

        mutating func next() async throws -> Data? {
            do {
                guard let buffer = try await base.next() else { return nil }
                // A large chunk that fills most of its storage is wrapped, not copied (`.automatic`
                // copies up to 256 KiB, which is every chunk of a download). Small chunks are cheaper
                // to copy, and a slice of a much larger read buffer is copied so that holding it does
                // not hold the whole buffer.
                let wraps = buffer.readableBytes >= 4096 && buffer.storageCapacity <= 2 * buffer.readableBytes
                let strategy: ByteBuffer.ByteTransferStrategy = wraps ? .noCopy : .copy
                return Data(buffer: buffer, byteTransferStrategy: strategy)
            } catch {
                throw TransportError.urlError(for: error, url: url)
            }
        }
    }
}
