import Courier
import Foundation
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An `HTTPTransport` that answers from memory: test code that uses Courier without a server, as `URLProtocol`
/// stubs let URLSession users do.
///
/// Every request is recorded (``requests``) with its whole body, then answered by the closure or the canned
/// responses given. Answers can be delayed, streamed in chunks over time, or fail with any `URLError` code the real
/// transport produces; cancellation (of the awaiting task, of the exchange, of the body) ends them at once with
/// `URLError(.cancelled)`, as on the wire. Everything above the transport — redirects, authentication, cookies,
/// serializers, progress — runs for real.
///
/// ```swift
/// let stub = StubTransport { request in
///     request.path == "/users/1" ? .json(#"{"name":"Ada"}"#) : StubResponse(statusCode: 404)
/// }
/// var configuration = SessionConfiguration.default
/// configuration.transport = stub
/// let manager = HTTPSessionManager(baseURL: URL(string: "https://api.example.com/"), configuration: configuration)
/// let (user, _) = try await manager.get("users/1")
/// #expect(stub.requests.map(\.path) == ["/users/1"])
/// ```
public final class StubTransport: HTTPTransport {
    private struct State {
        var requests: [RecordedRequest] = []
        var isShutDown = false
    }

    private let state = Mutex(State())
    private let answer: @Sendable (RecordedRequest) async throws -> StubResponse

    /// A stub that answers each request with what `answer` returns (or fails with what it throws).
    /// - Parameter answer: Called once per request, in the requesting task.
    public init(_ answer: @escaping @Sendable (RecordedRequest) async throws -> StubResponse) {
        self.answer = answer
    }

    /// A stub that answers with `responses` in turn; the last one answers every request after it.
    /// - Parameter responses: At least one answer.
    public convenience init(_ responses: StubResponse...) {
        let queue = Mutex(responses[...])
        self.init { _ in
            queue.withLock { queue in
                queue.count > 1 ? queue.removeFirst() : queue.first ?? StubResponse(statusCode: 404)
            }
        }
    }

    /// A stub that answers by path (`"/users/1"`); any other path gets an empty `404`.
    /// - Parameter routes: The answer for each path.
    public convenience init(routes: [String: StubResponse]) {
        self.init { request in routes[request.path] ?? StubResponse(statusCode: 404) }
    }

    /// Every request received so far, in order.
    public var requests: [RecordedRequest] { state.withLock { $0.requests } }

    /// Forgets the requests received so far.
    public func removeAllRequests() {
        state.withLock { $0.requests.removeAll() }
    }

    /// Records `request` with its body (reporting the body bytes as sent), then answers it.
    public func send(_ request: TransportRequest) async throws -> TransportResponse {
        let cancellation = StubCancellation(url: request.url)
        request.cancellation?.onCancel { cancellation.cancel() }
        if state.withLock({ $0.isShutDown }) {
            throw URLError(.cancelled, userInfo: [
                NSURLErrorFailingURLErrorKey: request.url,
                NSLocalizedDescriptionKey: "The transport has been shut down.",
            ])
        }
        let recorded = RecordedRequest(
            url: request.url, method: request.method, headers: request.headers,
            body: try await Self.read(request.body, reporting: request.didSendBodyBytes),
            timeoutInterval: request.timeoutInterval
        )
        state.withLock { $0.requests.append(recorded) }
        let response = try await answer(recorded)
        try await cancellation.wait(response.delay)
        if let failure = response.failure {
            throw URLError(failure, userInfo: [
                NSURLErrorFailingURLErrorKey: request.url,
                NSLocalizedDescriptionKey: "The stub failed the request with \(failure.rawValue).",
            ])
        }
        var headers = response.headers
        if let length = response.body.knownLength, !headers.contains(where: { $0.name.caseInsensitiveCompare("Content-Length") == .orderedSame }) {
            headers.append((name: "Content-Length", value: String(length)))
        }
        var fields: [String: String] = [:]
        for (name, value) in headers { fields[name] = fields[name].map { $0 + ", " + value } ?? value }
        guard let head = HTTPURLResponse(url: request.url, statusCode: response.statusCode, httpVersion: response.httpVersion, headerFields: fields) else {
            throw URLError(.badServerResponse, userInfo: [NSURLErrorFailingURLErrorKey: request.url])
        }
        let body = ResponseBodyStream(StubBodySequence(body: response.body, cancellation: cancellation)) { cancellation.cancel() }
        return TransportResponse(head: head, headerFields: headers, body: body, httpVersion: response.httpVersion)
    }

    /// Fails every later request with `URLError(.cancelled)`, as a shut-down transport does.
    public func shutdown() async throws {
        state.withLock { $0.isShutDown = true }
    }

    /// The whole body, reporting its bytes as sent.
    private static func read(_ body: HTTPRequestBody?, reporting sent: (@Sendable (Int64) -> Void)?) async throws -> Data? {
        guard let body else { return nil }
        let data: Data
        switch body.source {
        case .data(let bytes):
            data = bytes
        case .file(let url):
            data = try Data(contentsOf: url)
        case .inputStream(let open):
            data = try InputStreamReading.readAll(try open())
        case .producer(let produce):
            let collected = Mutex(Data())
            try await produce { chunk in collected.withLock { $0.append(chunk) } }
            data = collected.withLock { $0 }
        }
        if !data.isEmpty { sent?(Int64(data.count)) }
        return data
    }
}

/// Reads an `InputStream` to its end.
private enum InputStreamReading {
    static func readAll(_ stream: InputStream) throws -> Data {
        stream.open()
        defer { stream.close() }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = stream.read(&buffer, maxLength: buffer.count)
            if count < 0 { throw stream.streamError ?? URLError(.requestBodyStreamExhausted) }
            if count == 0 { return data }
            data.append(buffer, count: count)
        }
    }
}

/// A stubbed body as an async sequence: the chunks with their pauses, then the end or the failure.
private struct StubBodySequence: AsyncSequence, Sendable {
    let body: StubBody
    let cancellation: StubCancellation

    func makeAsyncIterator() -> Iterator {
        Iterator(body: body, cancellation: cancellation)
    }

    struct Iterator: AsyncIteratorProtocol {
        let body: StubBody
        let cancellation: StubCancellation
        var index = 0

        mutating func next() async throws -> Data? {
            try cancellation.check()
            guard index < body.chunks.count else {
                if let failure = body.failure {
                    throw URLError(failure, userInfo: [
                        NSURLErrorFailingURLErrorKey: cancellation.url,
                        NSLocalizedDescriptionKey: "The stub failed the body with \(failure.rawValue).",
                    ])
                }
                return nil
            }
            if index > 0 { try await cancellation.wait(body.interval) }
            defer { index += 1 }
            return body.chunks[index]
        }
    }
}
