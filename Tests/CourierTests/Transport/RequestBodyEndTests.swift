@testable import Courier
import Foundation
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A request with a body gives its connection back when it ends, however the engine's record of the body's end and the
/// response's end are ordered: a small body is written, the server answers at once, and the answer often arrives
/// before the engine has heard (one event-loop hop later) that the body's producer is done.
@Suite("Transport: a request's body end and its response end, in either order")
struct RequestBodyEndTests {
    /// One connection per host, and a short wait for it: a connection that stays leased fails the next request in
    /// seconds instead of hanging it.
    private static func transport() -> EngineTransport {
        var settings = EngineTransport.Configuration()
        settings.maximumConnectionsPerHost = 1
        settings.connectionWaitTimeout = 5
        return EngineTransport(configuration: settings)
    }

    private static func post(_ body: HTTPRequestBody, to url: URL, on transport: EngineTransport) async throws -> Int {
        let request = TransportRequest(url: url, method: "POST", headers: [("Content-Type", "text/plain")], body: body, timeoutInterval: 10)
        let response = try await transport.send(request)
        let data = try await response.body.collect()
        #expect(response.head.statusCode == 200)
        return data.count
    }

    @Test(arguments: ["memory", "file"])
    func smallUploadsOnOneConnectionEachGiveItBack(source: String) async throws {
        // A server that answers in one write as soon as the body is in: the answer then often arrives in the same
        // read as its end, before the engine has heard that the body's producer is done.
        // The race is likeliest on a connection's first request (before the fix, about one fresh connection in ten
        // met it with a body in memory, fewer with a file): each round opens one and sends a second request after the
        // first. The test below meets it every time.
        let server = try await HostileRoutes.startServer()
        defer { Task { await server.stop() } }
        let url = server.url("/status/200")
        let file = Fixtures.temporaryFile()
        try Data("once".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        for round in 0..<40 {
            let transport = Self.transport()
            for _ in 0..<2 {
                let body = source == "file" ? try HTTPRequestBody.file(file) : HTTPRequestBody.data(Data("once".utf8))
                let received = try await Self.post(body, to: url, on: transport)
                #expect(received > 0, "round \(round)")
            }
            try await transport.shutdown()
        }
    }

    /// A body whose producer reports its end a while after its last part (as an `AsyncStream` finished after its last
    /// element does): the server has answered in full before the engine hears the end. Before the fix the request
    /// ended first, the body's end was dropped and the connection stayed leased; the second request then waited.
    @Test func aBodyWhoseEndComesAfterTheAnswerStillGivesItsConnectionBack() async throws {
        let server = try await HostileRoutes.startServer()
        let transport = Self.transport()
        defer { Task { try? await transport.shutdown(); await server.stop() } }
        let url = server.url("/status/200")
        for _ in 0..<2 {
            let body = HTTPRequestBody(source: .producer { write in
                try await write(Data("once".utf8))
                try await Task.sleep(for: .milliseconds(300))
            }, length: 4)
            let started = ContinuousClock.now
            #expect(try await Self.post(body, to: url, on: transport) > 0)
            #expect(ContinuousClock.now - started >= .milliseconds(300), "the response ends once the body has")
        }
        #expect(server.requests(to: "/status/200").count == 2)
    }
}
