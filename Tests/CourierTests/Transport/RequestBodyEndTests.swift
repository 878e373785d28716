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
    private static func transport() -> AsyncHTTPClientTransport {
        var settings = AsyncHTTPClientTransport.Configuration()
        settings.maximumConnectionsPerHost = 1
        settings.connectionWaitTimeout = 5
        return AsyncHTTPClientTransport(configuration: settings)
    }

    private static func post(_ body: RequestBody, to url: URL, on transport: AsyncHTTPClientTransport) async throws -> Int {
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
        // The race is likeliest on a connection's first request (about one fresh connection in ten met it before the
        // fix): each round opens one and sends a second request after the first.
        let server = try await HostileRoutes.startServer()
        defer { Task { await server.stop() } }
        let url = server.url("/status/200")
        let file = Fixtures.temporaryFile()
        try Data("once".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        for round in 0..<40 {
            let transport = Self.transport()
            for _ in 0..<2 {
                let body = source == "file" ? try RequestBody.file(file) : RequestBody.data(Data("once".utf8))
                let received = try await Self.post(body, to: url, on: transport)
                #expect(received > 0, "round \(round)")
            }
            try await transport.shutdown()
        }
    }
}
