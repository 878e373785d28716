import Courier
import CourierOpenAPI
import Foundation
import HTTPTypes
import OpenAPIRuntime
import Synchronization
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `CourierTransport.send` against httpbin under gunicorn: bodies streamed both ways, query items and header fields
/// echoed, statuses of every kind returned as responses, cancellation from either side, and the session's own
/// settings (headers, interceptors, retries, cookies) applied to every call.
@Suite(
    "OpenAPI transport against httpbin",
    .enabled(ExternalServers.httpbin.skipMessage) { await HTTPBinServer.isRunning() }
)
struct OpenAPIHTTPBinTests {
    let base: URL

    init() throws {
        base = try #require(HTTPBinServer.base)
    }

    /// Runs `body` with a transport over a fresh ephemeral session, invalidated once `body` returned: a session's
    /// own transport shuts down when it is invalidated, which would cut off a response body still being read.
    private func withTransport<Value>(
        _ configure: (inout SessionConfiguration) -> Void = { _ in },
        _ body: (CourierTransport) async throws -> Value
    ) async throws -> Value {
        let session = OpenAPIFixtures.session(configure)
        defer { session.invalidateSessionCancelingTasks(false) }
        return try await body(CourierTransport(session: session))
    }

    /// Sends `request` through `transport` to httpbin.
    private func send(_ transport: CourierTransport, _ request: HTTPRequest, body: HTTPBody? = nil) async throws -> (HTTPResponse, HTTPBody?) {
        try await transport.send(request, body: body, baseURL: base, operationID: "test")
    }

    @Test func streamedUploadOfUnknownLengthIsEchoed() async throws {
        let chunks = (0..<8).map { index in "chunk \(index): " + String(repeating: "\(index)", count: 20_000) + "\n" }
        // Each chunk is made only when the transport asks for it.
        let produced = Mutex(0)
        let stream = AsyncStream<HTTPBody.ByteChunk>(unfolding: {
            let index = produced.withLock { count -> Int in
                defer { count += 1 }
                return count
            }
            return index < chunks.count ? HTTPBody.ByteChunk(chunks[index].utf8) : nil
        })
        var fields = HTTPFields()
        fields[.contentType] = "text/plain"
        let (status, echo) = try await withTransport { transport in
            let (response, body) = try await send(transport, OpenAPIFixtures.request(.post, "/anything", fields: fields), body: HTTPBody(stream, length: .unknown))
            return (response.status, try await OpenAPIFixtures.json(body))
        }
        #expect(status == .ok)
        #expect(echo["method"] as? String == "POST")
        #expect(echo["data"] as? String == chunks.joined())
        // Sent as it was produced: chunked, since nothing read it ahead to count it.
        let headers = try #require(echo["headers"] as? [String: String])
        #expect(headers["Transfer-Encoding"] == "chunked", "\(headers)")
        #expect(headers["Content-Length"] == nil, "\(headers)")
        #expect(produced.withLock { $0 } == chunks.count + 1)
    }

    @Test func streamedUploadOfKnownLengthAboveTheBufferingLimitIsEchoed() async throws {
        let chunks = (0..<6).map { index in String(repeating: "\(index)", count: 100_000) }
        let total = chunks.reduce(0) { $0 + $1.utf8.count }
        let stream = AsyncThrowingStream<HTTPBody.ByteChunk, any Error> { continuation in
            for chunk in chunks { continuation.yield(HTTPBody.ByteChunk(chunk.utf8)) }
            continuation.finish()
        }
        let (status, echo) = try await withTransport { transport in
            let (response, body) = try await send(transport, OpenAPIFixtures.request(.put, "/anything"), body: HTTPBody(stream, length: .known(Int64(total))))
            return (response.status, try await OpenAPIFixtures.json(body))
        }
        #expect(status == .ok)
        #expect(echo["method"] as? String == "PUT")
        #expect(echo["data"] as? String == chunks.joined())
        let headers = try #require(echo["headers"] as? [String: String])
        #expect(headers["Content-Length"] == "\(total)", "\(headers)")
        #expect(headers["Transfer-Encoding"] == nil, "\(headers)")
    }

    @Test func streamedDownloadIsReadChunkByChunk() async throws {
        let path = "/stream-bytes/102400?seed=7&chunk_size=1000"
        let session = OpenAPIFixtures.session()
        defer { session.invalidateSessionCancelingTasks(false) }
        let (response, body) = try await send(CourierTransport(session: session), OpenAPIFixtures.request(.get, path))
        #expect(response.status == .ok)
        #expect(body?.length == .unknown)
        let (streamed, chunks) = try await OpenAPIFixtures.collect(body)
        #expect(streamed.count == 102_400)
        #expect(chunks > 1, "the body came in \(chunks) chunk(s)")
        // httpbin's bytes for a seed are the same every time: fetched whole through the session's data task.
        let (whole, _) = try await session.data(for: URLRequest(url: try #require(URL(string: base.absoluteString + path))))
        #expect(streamed == whole)
    }

    @Test func queryItemsAndHeaderFieldsRoundTrip() async throws {
        var fields = HTTPFields()
        fields.append(HTTPField(name: try OpenAPIFixtures.name("X-Courier-One"), value: "1"))
        fields.append(HTTPField(name: try OpenAPIFixtures.name("X-Courier-Many"), value: "a"))
        fields.append(HTTPField(name: try OpenAPIFixtures.name("X-Courier-Many"), value: "b"))
        let session = OpenAPIFixtures.session()
        defer { session.invalidateSessionCancelingTasks(false) }
        let transport = CourierTransport(session: session)
        let (response, body) = try await send(transport, OpenAPIFixtures.request(.get, "/get?flavour=oat%20milk&n=1&n=2&caf\u{E9}=%C3%A9", fields: fields))
        #expect(response.status == .ok)
        #expect(response.headerFields[.contentType] == "application/json")
        let echo = try await OpenAPIFixtures.json(body)
        let args = try #require(echo["args"] as? [String: Any])
        #expect(args["flavour"] as? String == "oat milk")
        #expect(args["n"] as? [String] == ["1", "2"])
        #expect(args["caf\u{E9}"] as? String == "\u{E9}")
        let headers = try #require(echo["headers"] as? [String: String])
        #expect(headers["X-Courier-One"] == "1")
        #expect(headers["X-Courier-Many"] == "a, b")

        let (echoed, echoedBody) = try await send(transport, OpenAPIFixtures.request(.get, "/response-headers?X-Courier-Echo=yes&X-Courier-Other=2"))
        _ = try await OpenAPIFixtures.collect(echoedBody)
        #expect(echoed.headerFields[try OpenAPIFixtures.name("x-courier-echo")] == "yes")
        #expect(echoed.headerFields[try OpenAPIFixtures.name("X-Courier-Other")] == "2")
    }

    @Test(arguments: [404, 418, 500, 503])
    func nonSuccessStatusIsAResponse(code: Int) async throws {
        let (status, body) = try await withTransport { transport in
            let (response, body) = try await send(transport, OpenAPIFixtures.request(.get, "/status/\(code)"))
            return (response.status, try await OpenAPIFixtures.collect(body).data)
        }
        #expect(status.code == code)
        if code == 418 { #expect(String(decoding: body, as: UTF8.self).contains("teapot")) }
    }

    @Test func responsesWithoutABodyHaveNone() async throws {
        try await withTransport { transport in
            let (noContent, noContentBody) = try await send(transport, OpenAPIFixtures.request(.get, "/status/204"))
            #expect(noContent.status == .noContent)
            #expect(noContentBody == nil)
            let (head, headBody) = try await send(transport, OpenAPIFixtures.request(.head, "/get"))
            #expect(head.status == .ok)
            #expect(head.headerFields[.contentLength] != nil)
            #expect(headBody == nil)
        }
    }

    @Test func cancellingTheCallerCancelsTheRequest() async throws {
        // The session's last adapter runs just before the request goes out.
        let sent = Atomic<Bool>(false)
        let session = OpenAPIFixtures.session { configuration in
            configuration.interceptors = [Adapter { request, _ in
                sent.store(true, ordering: .releasing)
                return request
            }]
        }
        defer { session.invalidateSessionCancelingTasks(true) }
        let transport = CourierTransport(session: session)
        let base = self.base
        let started = ContinuousClock.now
        let call = Task {
            try await transport.send(OpenAPIFixtures.request(.get, "/delay/4"), body: nil, baseURL: base, operationID: "delay")
        }
        #expect(await eventually { sent.load(ordering: .acquiring) }, "the request is on its way")
        call.cancel()
        let outcome = await call.result
        let elapsed = ContinuousClock.now - started
        let error = OpenAPIFixtures.error(of: outcome)
        #expect((error as? URLError)?.code == .cancelled, "\(String(describing: error))")
        #expect(elapsed < .seconds(2), "took \(elapsed)")
    }

    @Test func cancellingTheReaderCancelsTheDownload() async throws {
        let session = OpenAPIFixtures.session()
        defer { session.invalidateSessionCancelingTasks(true) }
        let (response, body) = try await CourierTransport(session: session)
            .send(OpenAPIFixtures.request(.get, "/drip?duration=6&numbytes=6&delay=0"), body: nil, baseURL: base, operationID: "drip")
        #expect(response.status == .ok)
        let dripping = try #require(body)
        let (firstChunk, arrived) = AsyncStream.makeStream(of: Int.self)
        let reader = Task {
            var count = 0
            for try await chunk in dripping {
                count += chunk.count
                arrived.yield(count)
            }
            return count
        }
        for await _ in firstChunk { break }
        let cancelled = ContinuousClock.now
        reader.cancel()
        let outcome = await reader.result
        let elapsed = ContinuousClock.now - cancelled
        #expect((OpenAPIFixtures.error(of: outcome) as? URLError)?.code == .cancelled, "\(outcome)")
        #expect(elapsed < .seconds(1), "took \(elapsed)")
    }

    @Test func theSessionsHeadersInterceptorsAndCookiesApply() async throws {
        let session = OpenAPIFixtures.session { configuration in
            configuration.httpAdditionalHeaders = ["X-Courier-Session": "session"]
            configuration.interceptors = [Adapter { request, _ in
                var request = request
                request.setValue("adapter", forHTTPHeaderField: "X-Courier-Adapter")
                return request
            }]
        }
        defer { session.invalidateSessionCancelingTasks(false) }
        let transport = CourierTransport(session: session)
        let (_, headersBody) = try await transport.send(OpenAPIFixtures.request(.get, "/headers"), body: nil, baseURL: base, operationID: "headers")
        let headers = try #require(try await OpenAPIFixtures.json(headersBody)["headers"] as? [String: String])
        #expect(headers["X-Courier-Session"] == "session")
        #expect(headers["X-Courier-Adapter"] == "adapter")

        // httpbin sets the cookie and redirects to /cookies; the session's jar keeps it for the next call.
        let (_, setBody) = try await transport.send(OpenAPIFixtures.request(.get, "/cookies/set?flavour=oat"), body: nil, baseURL: base, operationID: "set")
        #expect(try await OpenAPIFixtures.json(setBody)["cookies"] as? [String: String] == ["flavour": "oat"])
        let (_, cookiesBody) = try await transport.send(OpenAPIFixtures.request(.get, "/cookies"), body: nil, baseURL: base, operationID: "cookies")
        #expect(try await OpenAPIFixtures.json(cookiesBody)["cookies"] as? [String: String] == ["flavour": "oat"])
    }

    @Test func theSessionsRetryPolicyResendsBufferedBodiesOnly() async throws {
        // Every first attempt goes to a port nothing listens on: refused, so never received, and retried (to httpbin).
        let refusedPort = try TransportFailureTests.closedPort()
        let session = OpenAPIFixtures.session { configuration in
            configuration.interceptors = [
                Adapter { request, attempt in
                    guard attempt.number == 0, let url = request.url,
                          var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
                    else { return request }
                    components.port = refusedPort
                    var refused = request
                    refused.url = components.url
                    return refused
                },
                RetryPolicy(retryLimit: 1, exponentialBackoffScale: 0.01, jitter: false, budget: nil),
            ]
        }
        defer { session.invalidateSessionCancelingTasks(false) }
        let transport = CourierTransport(session: session)

        // A small body of known length is read into memory first, so the retry sends it again, whole.
        let (response, body) = try await transport.send(
            OpenAPIFixtures.request(.put, "/anything"), body: HTTPBody("small body"), baseURL: base, operationID: "put"
        )
        #expect(response.status == .ok)
        let echo = try await OpenAPIFixtures.json(body)
        #expect(echo["data"] as? String == "small body")
        #expect((echo["headers"] as? [String: String])?["Content-Length"] == "10")

        // A body of unknown length is streamed from its sequence, which cannot be read twice: it is not retried.
        let stream = AsyncStream<HTTPBody.ByteChunk> { continuation in
            continuation.yield(HTTPBody.ByteChunk("streamed body".utf8))
            continuation.finish()
        }
        await #expect {
            _ = try await transport.send(
                OpenAPIFixtures.request(.put, "/anything"), body: HTTPBody(stream, length: .unknown), baseURL: base, operationID: "put"
            )
        } throws: { error in
            (error as? URLError)?.code == .cannotConnectToHost
        }
    }
}
