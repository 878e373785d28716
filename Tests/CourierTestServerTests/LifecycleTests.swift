import AsyncHTTPClient
import CourierTestServer
import Foundation
import NIOCore
import NIOPosix
import Testing

@Suite struct LifecycleTests {
    @Test func startsOnAnEphemeralPortAndShutsDownCleanly() async throws {
        let server = try await TestServer.start()
        #expect(server.port > 0)
        #expect(server.baseURL.absoluteString == "http://127.0.0.1:\(server.port)")
        #expect(server.certificateAuthorityDER == nil)
        #expect(server.leafCertificateDER == nil)
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        #expect(try await client.fetch(server, "/get").status == 200)
        try await client.shutdown()

        let start = ContinuousClock.now
        try await server.shutdown()
        #expect(ContinuousClock.now - start < .seconds(2))
        #expect(await !isListening(port: server.port))
    }

    @Test func shutdownIsFastEvenWithAStalledDownload() async throws {
        let server = try await TestServer.start()
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        let response = try await client.execute(
            HTTPClientRequest(url: server.baseURL.absoluteString + "/bytes/\(1 << 30)"), timeout: .seconds(30))
        #expect(response.status == .ok)
        // Do not read the body: the server's writes stall on backpressure.
        let start = ContinuousClock.now
        try await server.shutdown()
        #expect(ContinuousClock.now - start < .seconds(3))
        #expect(await !isListening(port: server.port))
        try await client.shutdown()
    }

    @Test func twoServersGetDifferentPorts() async throws {
        let first = try await TestServer.start()
        let second = try await TestServer.start()
        #expect(first.port != second.port)
        try await first.shutdown()
        try await second.shutdown()
    }

    @Test func bindingABusyPortThrows() async throws {
        let first = try await TestServer.start()
        await #expect(throws: (any Error).self) {
            let second = try await TestServer.start(port: first.port)
            try await second.shutdown()
        }
        try await first.shutdown()
    }

    @Test func requestLogRecordsMethodPathAndHeaders() async throws {
        try await withServer { (server, client) async throws in
            #expect(server.requestLog.count == 0)
            _ = try await client.fetch(server, "/get?q=1", headers: [("X-Trace", "abc")])
            _ = try await client.fetch(server, "/nowhere", method: .POST)
            #expect(server.requestLog.count == 2)
            let requests = server.requestLog.requests
            #expect(requests[0].method == "GET")
            #expect(requests[0].target == "/get?q=1")
            #expect(requests[0].path == "/get")
            #expect(requests[0].header("X-Trace") == "abc")
            #expect(requests[1].method == "POST")
            #expect(requests[1].path == "/nowhere")
            server.requestLog.reset()
            #expect(server.requestLog.count == 0)
        }
    }

    /// True when something accepts TCP connections on 127.0.0.1:`port`.
    func isListening(port: Int) async -> Bool {
        do {
            let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connectTimeout(.seconds(1))
                .connect(host: "127.0.0.1", port: port).get()
            try? await channel.close()
            return true
        } catch {
            return false
        }
    }
}
