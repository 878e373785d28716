import AsyncHTTPClient
import Foundation
import NIOCore
import NIOFoundationCompat
import NIOHTTP1
import NIOHTTP2
import NIOPosix
import NIOSSL
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Courier's default transport: AsyncHTTPClient on SwiftNIO, the engine under every session and operation.
///
/// Its earlier name, `AsyncHTTPClientTransport`, stays a deprecated alias for one release: swift-openapi-async-http-client's
/// transport, which OpenAPI users import beside Courier, has that name too.
///
/// HTTP/1.1 and HTTP/2, redirects disabled (the exchange follows them), connection establishment
/// not retried (failures are reported at once, as URLSession does). HTTPS connections are checked by
/// the configuration's ``Configuration/securityPolicy`` (or the host's entry in
/// ``Configuration/securityPolicies``) during the TLS handshake, before any request byte is sent.
///
/// Connections are pooled per security policy, host, port and proxy (one AsyncHTTPClient `HTTPClient` each, made on
/// first use, all on NIO's shared event loops): two policies never share a connection. The requests to one origin and
/// their connections stay on one event loop (origins spread over the group), so no response callback crosses threads. Call
/// ``shutdown()`` when done; a transport released without it shuts its clients down in the background.
public final class EngineTransport: HTTPTransport {
    private let clients: EngineClientPool
    private let threadPool: NIOThreadPool
    /// Checks every request's timeouts (see ``TimeoutSweeper``).
    private let sweeper: TimeoutSweeper

    /// The configuration the transport was created with.
    public let configuration: Configuration

    /// Creates a transport with its own connection pool on NIO's shared event loops.
    /// - Parameter configuration: Timeouts, connection limits, HTTP version and TLS. Default `.init()`.
    public convenience init(configuration: Configuration = Configuration()) {
        self.init(
            configuration: configuration,
            clients: EngineClientPool(configuration: configuration, eventLoopGroup: MultiThreadedEventLoopGroup.singleton)
        )
    }

    init(configuration: Configuration, clients: EngineClientPool) {
        self.configuration = configuration
        self.threadPool = NIOThreadPool.singleton
        self.clients = clients
        self.sweeper = TimeoutSweeper(eventLoop: clients.eventLoopGroup.next())
    }

    deinit {
        clients.shutdownInBackground()
    }

    /// The HTTPS connection pools (engine clients), how many carry a request now, and how many were made (for tests).
    var httpsPoolCounts: (all: Int, busy: Int, made: Int) { clients.httpsClientCounts }

    /// Cancels requests in flight and closes every connection of every pool. Calling it twice is harmless. A client
    /// the transport shares (``init(sharing:configuration:)``) is left running.
    public func shutdown() async throws {
        try await clients.shutdown()
    }

    /// Sends one request (see ``HTTPTransport/send(_:)``).
    ///
    /// The URL is checked first (`RequestURLCheck`): a URL the engine cannot use fails with `URLError(.badURL)` (or
    /// `.unsupportedURL` for another scheme) before anything is sent, and so are the header fields: a name that is not
    /// a token, a value with CR, LF, NUL or another control character, or a section over 64 KiB fails with
    /// ``RequestHeaderError``. An idempotent request whose body can be sent
    /// again is retried once on a new connection when a reused HTTP/1.1 connection was closed before any byte of its
    /// response arrived, or its HTTP/2 stream was refused or dropped by a GOAWAY before its response began
    /// (``TransportResponse/staleConnectionRetries`` counts it).
    /// The failure before any byte of the response as a request that can go again on a new connection, or `nil`:
    /// - a reused HTTP/1.1 connection the server closed (``ResponseHeadGuard``'s error);
    /// - a pooled connection whose close the engine had not yet seen, so the write failed ("I/O on closed channel")
    ///   and nothing reached the server;
    /// - an HTTP/2 stream refused (`REFUSED_STREAM`) or dropped by a GOAWAY (SwiftNIO closes the streams above its
    ///   last stream ID with `CANCEL`; nginx sends one after `keepalive_requests`, 1,000 by default): RFC 9113,
    ///   section 6.8, says the server did not process them;
    /// - `HTTPClientError.cancelled` when nobody here cancelled (`cancelledHere`): AsyncHTTPClient's answer to a
    ///   request it handed to an HTTP/2 connection that was already closing, unsent.
    static func unanswered(_ error: any Error, cancelledHere: Bool) -> StaleConnectionError? {
        switch error {
        case let stale as StaleConnectionError:
            return stale
        case let closed as ChannelError where closed == .ioOnClosedChannel:
            return StaleConnectionError(underlying: closed)
        case let closed as NIOHTTP2Errors.StreamClosed where closed.errorCode == .refusedStream || closed.errorCode == .cancel:
            return StaleConnectionError(underlying: closed, wasNeverSent: true)
        case let dropped as HTTPClientError where dropped == .cancelled && !cancelledHere:
            return StaleConnectionError(underlying: dropped, wasNeverSent: true)
        default:
            return nil
        }
    }

    public func send(_ request: TransportRequest) async throws -> TransportResponse {
        let url = request.url
        let target: RequestURLCheck.Target
        do throws(RequestURLCheck.Refusal) {
            target = try RequestURLCheck.check(url)
            guard RequestURLCheck.isToken(request.method) else {
                throw RequestURLCheck.Refusal(isUnsupportedScheme: false, description: "The method \(request.method.debugDescription) is not an HTTP token.")
            }
        } catch {
            throw error.urlError(for: url)
        }
        try RequestHeaderCheck.check(request.headers)
        var current = request
        var retries = 0
        let queued = NIODeadline.now()
        while true {
            do {
                return try await attempt(current, target: target, staleConnectionRetries: retries, queuedSince: queued)
            } catch is ConnectionQueueExpiry {
                // The engine gives up on a request waiting for a pooled connection after its connect timeout: the
                // request never left, so it waits again, until the connection wait (``connectionWaitTimeout``) of
                // its first attempt runs out (its watchdog then fails it with its own message).
                continue
            } catch let stale as StaleConnectionError {
                guard retries < stale.retryLimit, Self.canSendAgain(request) else { throw TransportError.urlError(for: stale, url: url) }
                current.didSendBodyBytes = Self.skippingFirst(stale.bodyBytesReported, of: current.didSendBodyBytes)
                retries += 1
            }
        }
    }

    /// Whether a request may be sent a second time after a stale connection: an idempotent method (RFC 9110 §9.2.2)
    /// and a body that can be produced again (none, bytes in memory or a file).
    static func canSendAgain(_ request: TransportRequest) -> Bool {
        guard ["GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE"].contains(request.method.uppercased()) else { return false }
        switch request.body?.source {
        case nil, .data?, .file?: return true
        case .inputStream?, .producer?: return false
        }
    }

    /// Upload progress for a second attempt: the bytes already reported for the first are not reported twice.
    private static func skippingFirst(
        _ reported: Int64, of progress: (@Sendable (Int64) -> Void)?
    ) -> (@Sendable (Int64) -> Void)? {
        guard let progress, reported > 0 else { return progress }
        let skipped = Mutex<Int64>(0)
        return { count in
            let fresh = skipped.withLock { skipped -> Int64 in
                let skip = min(count, reported - skipped)
                skipped += skip
                return count - skip
            }
            if fresh > 0 { progress(fresh) }
        }
    }

    /// One attempt on the engine. Throws `URLError`, or ``StaleConnectionError`` (with the request body bytes
    /// reported so far) for the caller to decide on a retry.
    private func attempt(
        _ request: TransportRequest, target: RequestURLCheck.Target, staleConnectionRetries: Int, queuedSince: NIODeadline
    ) async throws -> TransportResponse {
        let url = request.url
        let engineRequest: HTTPClient.Request
        let client: EngineClientPool.EngineClient
        let fileRegions = FileRegionLease()
        let bodyEnd = request.body?.length.map(RequestBodyEndGate.init(length:))
        do {
            (engineRequest, client) = try makeEngineRequest(request, target: target, fileRegions: fileRegions, bodyEnd: bodyEnd)
        } catch let refusal as SharedClientError {
            // Not a failure of the network: a request this transport's shared client cannot carry, said as such.
            throw refusal
        } catch {
            throw TransportError.urlError(for: error, url: url)
        }
        if Task.isCancelled {
            client.usage.end()
            throw CancellationError()
        }

        let connections = client.connections
        let ticket = connections.begin()
        // Listed until the head arrives or the attempt fails: a connection made meanwhile asks the oldest request.
        let trustTicket = client.trustAnswerers.map { answerers in
            (answerers, answerers.add(request.serverTrustHandler, port: target.port))
        }
        defer { trustTicket.map { $0.0.remove($0.1) } }
        // Bytes reported for this attempt, so that a retry does not report them twice (only with a body to report).
        let bodyBytesSent = Atomic<Int64>(0)
        let reportBodyBytes = request.didSendBodyBytes
        var counting: (@Sendable (Int64) -> Void)?
        if let reportBodyBytes {
            counting = { count in
                bodyBytesSent.add(count, ordering: .relaxed)
                reportBodyBytes(count)
            }
        }
        let watchdog = makeWatchdog(for: request, queuedSince: queuedSince)
        let delegate = StreamingResponseDelegate(watchdog: watchdog, requestBodyEnd: bodyEnd, didSendBodyBytes: counting) {
            connections.headSent(ticket)
        }
        let eventLoop = clients.eventLoop(for: target)
        let engine = client.client, logger = configuration.logger
        // Handed to the engine on the loop its connections for this origin use: from another thread the engine wakes
        // that loop for the request's state, for the connection and for the completion callback below (three or four
        // eventfd writes and context switches per request); from the loop itself it wakes it once, here.
        eventLoop.execute {
            let task = engine.execute(request: engineRequest, delegate: delegate, eventLoop: .delegate(on: eventLoop), deadline: nil, logger: logger)
            delegate.attach(task)
            task.futureResult.whenComplete { result in
                // The engine fails a request on a client that is shutting down without calling its delegate: the
                // head's waiter must still hear of it, or it would wait for ever.
                if case .failure(let error) = result { delegate.engineTaskFailed(error) }
                fileRegions.requestEnded()
                client.usage.end()
            }
        }
        request.cancellation?.onCancel { delegate.cancel() }
        if let watchdog { watch(delegate, with: watchdog, request: request) }

        let head: HTTPResponseHead
        do {
            head = try await withTaskCancellationHandler {
                try await delegate.head()
            } onCancel: {
                delegate.cancel()
            }
        } catch {
            _ = connections.finish(ticket)
            if let expiry = ConnectionQueueExpiry(error), !delegate.cancelRequested, !clients.isShutDown {
                let wait = configuration.connectionWaitTimeout
                guard wait > 0, NIODeadline.now() - queuedSince >= .init(clampedSeconds: wait) else { throw expiry }
                // The engine's queue timeout came at the end of the wait, before the watchdog's check: the same
                // failure, said the same way.
                throw Self.timedOut(.connectionWait, url: url, idle: request.timeoutInterval, wait: wait)
            }
            if !clients.isShutDown, var stale = Self.unanswered(error, cancelledHere: delegate.cancelRequested) {
                stale.bodyBytesReported = bodyBytesSent.load(ordering: .relaxed)
                throw stale
            }
            // A request racing ``shutdown()`` can meet a connection the shutdown is closing; it was cancelled by it.
            throw TransportError.urlError(for: clients.isShutDown ? HTTPClientError.alreadyShutdown : client.explaining(error, target: target), url: url)
        }
        let connection = connections.finish(ticket)
        if head.status == .proxyAuthenticationRequired, let proxy = client.proxy, client.forwardsThroughProxy {
            delegate.cancel()
            throw TransportError.urlError(
                for: ProxyError.authenticationRequired(proxy: proxy.description, credentialsWereSent: proxy.credentials != nil), url: url
            )
        }
        let version = "HTTP/\(head.version.major).\(head.version.minor)"
        guard let response = HTTPURLResponse.received(
            url: url, statusCode: Int(head.status.code), httpVersion: version, fields: head.headers
        ) else {
            delegate.cancel()
            throw URLError(.badServerResponse, userInfo: [NSURLErrorFailingURLErrorKey: url])
        }
        let body = ResponseBodyStream(EngineBody(reader: EngineBodyReader(delegate), url: url)) { delegate.cancel() }
        return TransportResponse(
            head: response, headerFields: head.headers.map { ($0.name, $0.value) }, body: body, httpVersion: version,
            connection: connection, staleConnectionRetries: staleConnectionRetries
        )
    }

    /// The request's watchdog (see ``IdleTimeoutWatchdog``): the connection wait (what is left of it since the
    /// request first queued), then the idle timeout; `nil` when neither applies.
    private func makeWatchdog(for request: TransportRequest, queuedSince: NIODeadline) -> IdleTimeoutWatchdog? {
        let idle = request.timeoutInterval > 0 ? request.timeoutInterval : nil
        let wait = configuration.connectionWaitTimeout > 0 ? configuration.connectionWaitTimeout : nil
        guard idle != nil || wait != nil else { return nil }
        return IdleTimeoutWatchdog(
            idleTimeout: idle.map(TimeAmount.init(clampedSeconds:)),
            connectionWait: wait.map { TimeAmount(clampedSeconds: $0) - (NIODeadline.now() - queuedSince) },
            sweeper: sweeper
        )
    }

    /// Has the transport's sweeper check `watchdog`, which fails the request when a limit runs out.
    private func watch(_ delegate: StreamingResponseDelegate, with watchdog: IdleTimeoutWatchdog, request: TransportRequest) {
        let url = request.url
        let idle = request.timeoutInterval, wait = configuration.connectionWaitTimeout
        watchdog.start { [weak delegate] expiry in
            delegate?.fail(with: Self.timedOut(expiry, url: url, idle: idle, wait: wait))
        }
    }

    /// The error of a request whose idle timeout (`idle` seconds) or connection wait (`wait` seconds) ran out.
    private static func timedOut(_ expiry: IdleTimeoutWatchdog.Expiry, url: URL, idle: TimeInterval, wait: TimeInterval) -> URLError {
        let message = switch expiry {
        case .idle: "The request timed out after \(idle) s without data."
        case .connectionWait: "The request timed out after waiting \(wait) s for a connection."
        }
        return URLError(.timedOut, userInfo: [NSURLErrorFailingURLErrorKey: url, NSLocalizedDescriptionKey: message])
    }

    /// The engine's request, and the client (connection pool) that must carry it.
    private func makeEngineRequest(
        _ request: TransportRequest, target: RequestURLCheck.Target, fileRegions: FileRegionLease, bodyEnd: RequestBodyEndGate?
    ) throws -> (HTTPClient.Request, EngineClientPool.EngineClient) {
        let scheme = target.scheme
        let client = try clients.client(for: target)
        // The client counts this request from here; a request that never reaches the engine ends here.
        var built = false
        defer { if !built { client.usage.end() } }
        var headers = HTTPHeaders()
        headers.reserveCapacity(request.headers.count)
        for (name, value) in request.headers {
            // The engine derives the framing from the body; a caller's own framing headers would conflict.
            if name.isHeaderName("Content-Length") || name.isHeaderName("Transfer-Encoding") {
                continue
            }
            // Proxy credentials are for a forwarding proxy only: never for an origin, in a tunnel or bypassing.
            if name.isHeaderName("Proxy-Authorization"), !client.forwardsThroughProxy {
                continue
            }
            headers.add(name: name, value: value)
        }
        var engineURL = request.url
        if target.isUnixSocket {
            // The engine names no host for a socket; HTTP/1.1 needs one (curl sends "localhost" too).
            if !headers.contains(name: "Host") { headers.add(name: "Host", value: "localhost") }
        } else if let socketPath = configuration.unixSocketPath {
            engineURL = try Self.overUnixSocket(request.url, target: target, socketPath: socketPath, headers: &headers)
        } else if client.forwardsThroughProxy, let proxy = client.proxy {
            engineURL = try Self.forwarding(request.url, target: target, through: proxy, headers: &headers)
        } else {
            let port = configuration.settings.connectionPort(host: target.host, port: target.port)
            if port != target.port {
                engineURL = try Self.connecting(request.url, target: target, toPort: port, headers: &headers)
            }
        }
        let body = request.body.map { body in
            let threadPool = self.threadPool
            let loop = clients.eventLoop(for: target)
            // Plain HTTP is always HTTP/1.1 on a bare socket: files can go with sendfile(2).
            let lease = scheme == "http" ? fileRegions : nil
            return HTTPClient.Body.stream(contentLength: body.length) { writer in
                let producer = RequestBodyPump.start(body, into: writer, on: loop, threadPool: threadPool, fileRegions: lease)
                bodyEnd?.open(after: producer, on: loop)
                return producer
            }
        }
        let engineRequest = try HTTPClient.Request(
            url: engineURL,
            method: HTTPMethod(rawValue: request.method.uppercased()),
            headers: headers,
            body: body
        )
        built = true
        return (engineRequest, client)
    }
}

extension EngineTransport {
    /// The URL the engine connects to for a plain-HTTP request forwarded by an HTTP proxy: the proxy's address with
    /// the request's path and query. The origin goes into `Host` (from which ``AbsoluteFormRequestWriter`` rebuilds
    /// the absolute target), and the proxy's credentials into `Proxy-Authorization` unless the caller set one.
    static func forwarding(
        _ url: URL, target: RequestURLCheck.Target, through proxy: ProxyServer, headers: inout HTTPHeaders
    ) throws -> URL {
        addOriginHost(target, to: &headers)
        // The proxy fetches the URL's origin, whatever `Host` says (the writer takes it from here and removes it).
        headers.replaceOrAdd(name: AbsoluteFormRequestWriter.targetField, value: originAuthority(target, includingScheme: true))
        if let credentials = proxy.credentials, !headers.contains(name: "Proxy-Authorization") {
            headers.add(name: "Proxy-Authorization", value: credentials.headerValue)
        }
        let proxyHost = proxy.host.contains(":") ? "[\(proxy.host)]" : proxy.host
        return try rebased(url, onto: "http://\(proxyHost):\(proxy.port)")
    }

    /// The URL the engine connects to for a request sent over the Unix domain socket at `socketPath` (the
    /// configuration's ``Configuration/unixSocketPath``): `http+unix` with the request's path and query, the
    /// origin in `Host`. Plain HTTP only.
    static func overUnixSocket(
        _ url: URL, target: RequestURLCheck.Target, socketPath: String, headers: inout HTTPHeaders
    ) throws -> URL {
        guard target.scheme == "http" else {
            throw URLError(.unsupportedURL, userInfo: [
                NSURLErrorFailingURLErrorKey: url,
                NSLocalizedDescriptionKey: "HTTPS over a Unix domain socket is not supported; use an http:// URL with the socket (\(url.absoluteString)).",
            ])
        }
        guard !socketPath.isEmpty, socketPath.utf8.count <= RequestURLCheck.maximumSocketPathLength else {
            throw URLError(.badURL, userInfo: [
                NSURLErrorFailingURLErrorKey: url,
                NSLocalizedDescriptionKey: "The Unix socket path \(socketPath.debugDescription) is empty or longer than \(RequestURLCheck.maximumSocketPathLength) bytes.",
            ])
        }
        addOriginHost(target, to: &headers)
        let unreserved = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~")
        guard let encodedPath = socketPath.addingPercentEncoding(withAllowedCharacters: unreserved) else {
            throw URLError(.badURL, userInfo: [NSURLErrorFailingURLErrorKey: url])
        }
        return try rebased(url, onto: "\(RequestURLCheck.Target.unixSocketScheme)://\(encodedPath)")
    }

    /// The URL the engine connects to for a request ``TransportSettings/connectionPorts`` sends to another port: the
    /// same scheme and host (so TLS names and checks the URL's host, and ``TransportSettings/resolvedHosts`` still
    /// applies) on `port`, the URL's own authority in `Host` (AsyncHTTPClient writes its own only when there is none,
    /// and HTTP/2 takes `:authority` from it).
    static func connecting(
        _ url: URL, target: RequestURLCheck.Target, toPort port: Int, headers: inout HTTPHeaders
    ) throws -> URL {
        guard (1...65_535).contains(port) else {
            throw URLError(.badURL, userInfo: [
                NSURLErrorFailingURLErrorKey: url,
                NSLocalizedDescriptionKey: "The connection port \(port) given for \(target.host):\(target.port) is not between 1 and 65535.",
            ])
        }
        addOriginHost(target, to: &headers)
        let host = target.host.contains(":") ? "[\(target.host)]" : target.host
        return try rebased(url, onto: "\(target.scheme)://\(host):\(port)")
    }

    /// `Host: origin[:port]` unless the caller set one.
    private static func addOriginHost(_ target: RequestURLCheck.Target, to headers: inout HTTPHeaders) {
        guard !headers.contains(name: "Host") else { return }
        headers.add(name: "Host", value: originAuthority(target, includingScheme: false))
    }

    /// `[scheme://]host[:port]`, the port only when not the scheme's default, an IPv6 host in brackets.
    private static func originAuthority(_ target: RequestURLCheck.Target, includingScheme: Bool) -> String {
        let host = target.host.contains(":") ? "[\(target.host)]" : target.host
        let defaultPort = target.scheme == "https" ? 443 : 80
        let authority = target.port == defaultPort ? host : "\(host):\(target.port)"
        return includingScheme ? "\(target.scheme)://\(authority)" : authority
    }

    /// `url`'s path and query after `base` (a scheme and an authority).
    private static func rebased(_ url: URL, onto base: String) throws -> URL {
        let components = URLComponents(url: url, resolvingAgainstBaseURL: true)
        var pathAndQuery = components?.percentEncodedPath ?? ""
        if pathAndQuery.isEmpty { pathAndQuery = "/" }
        if let query = components?.percentEncodedQuery { pathAndQuery += "?" + query }
        guard let rebased = URL(string: base + pathAndQuery) else {
            throw URLError(.badURL, userInfo: [NSURLErrorFailingURLErrorKey: url])
        }
        return rebased
    }
}

/// The engine's backpressured body, as `Data` chunks with errors mapped to `URLError`.
private struct EngineBody: AsyncSequence, Sendable {
    let reader: EngineBodyReader
    let url: URL

    func makeAsyncIterator() -> Iterator {
        Iterator(reader: reader, url: url)
    }

    struct Iterator: AsyncIteratorProtocol {
        let reader: EngineBodyReader
        let url: URL

        mutating func next() async throws -> Data? {
            do {
                guard let buffer = try await reader.delegate.nextBodyPart() else { return nil }
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

/// The body's hold on its request: once the body and every iterator of it are gone, a request whose body has not
/// ended is cancelled (dropping a body unread frees its connection).
private final class EngineBodyReader: Sendable {
    let delegate: StreamingResponseDelegate

    init(_ delegate: StreamingResponseDelegate) {
        self.delegate = delegate
    }

    deinit {
        delegate.readerLeft()
    }
}

/// ``EngineTransport``'s earlier name, kept for one release.
@available(*, deprecated, renamed: "EngineTransport", message: "renamed to avoid colliding with swift-openapi-async-http-client's AsyncHTTPClientTransport")
public typealias AsyncHTTPClientTransport = EngineTransport
