@testable import Courier
import Foundation
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The transport's HTTPS connection pools (one engine client per policy, host, port and proxy) are bounded: idle ones
/// are shut down when it makes a new one, those carrying a request are not. Against nginx, which listens on
/// 127.0.0.1 to 127.0.0.65 on Linux (macOS configures 127.0.0.1 alone): 65 hosts to the pools.
#if os(Linux)
@Suite("Transport: HTTPS connection pools bounded over many hosts", .serialized)
struct BoundedPoolTests {
    /// A transport trusting nginx's CA for every loopback address (its certificate names 127.0.0.1 only).
    static func transport(
        maximumIdlePools: Int, idleLifetime: TimeInterval = 3600, idleConnectionTimeout: TimeInterval = 60
    ) throws -> EngineTransport {
        let policy = SecurityPolicy.default
        policy.trustedRootCertificates = try NginxServer.certificates(at: NginxServer.certificateAuthorityPath)
        policy.validatesDomainName = false
        var configuration = EngineTransport.Configuration()
        configuration.securityPolicy = policy
        configuration.maximumIdlePools = maximumIdlePools
        configuration.idlePoolLifetime = idleLifetime
        configuration.idleConnectionTimeout = idleConnectionTimeout
        return EngineTransport(configuration: configuration)
    }

    /// nginx's `file` on the loopback address 127.0.0.`host` (1 to 65).
    static func url(host: Int, _ file: String) throws -> URL {
        let port = try #require(NginxServer.environment["COURIER_NGINX_PORT"])
        return try #require(URL(string: "https://127.0.0.\(host):\(port)/\(file)"))
    }

    /// GETs `url`, then waits until the engine has ended the request too (its pool counts it until then), with
    /// `othersInFlight` requests still carried.
    static func get(_ url: URL, through transport: EngineTransport, othersInFlight: Int = 0) async throws -> Data {
        let response = try await transport.send(TransportRequest(url: url))
        #expect(response.head.statusCode == 200)
        let body = try await response.body.collect()
        #expect(await eventually(timeout: .seconds(5)) { transport.httpsPoolCounts.busy == othersInFlight })
        return body
    }

    @Test func idlePoolsBeyondTheMaximumAreShutDownWithTheirConnections() async throws {
        guard await NginxServer.isRunning() else { Issue.record(NginxServer.skipMessage); return }
        let transport = try Self.transport(maximumIdlePools: 4)
        defer { Task { try? await transport.shutdown() } }
        _ = try await Self.get(try Self.url(host: 2, "hello.txt"), through: transport)
        let before = ProcessStats.openDescriptors()
        for host in 3...42 {
            #expect(try await Self.get(try Self.url(host: host, "hello.txt"), through: transport).count == 17)
            #expect(transport.httpsPoolCounts.all <= 4, "at most four idle pools, the one just used among them")
        }
        #expect(transport.httpsPoolCounts.made == 41)
        // Forty hosts, each pool with a connection kept alive for 60 s: without the bound, forty more descriptors.
        let closed = await eventually(timeout: .seconds(10)) { ProcessStats.openDescriptors() - before < 10 }
        #expect(closed, "\(ProcessStats.openDescriptors() - before) descriptors more than before")
    }

    @Test func aPoolCarryingARequestIsNotShutDown() async throws {
        guard await NginxServer.isRunning() else { Issue.record(NginxServer.skipMessage); return }
        let transport = try Self.transport(maximumIdlePools: 0, idleLifetime: 0)
        defer { Task { try? await transport.shutdown() } }
        // 32 MiB that the test reads only in part: the request stays in flight (held back by backpressure) meanwhile.
        let file = try NginxInterop.servedFile("bytes-32m.bin")
        let response = try await transport.send(TransportRequest(url: try Self.url(host: 2, "bytes-32m.bin")))
        var chunks = response.body.makeAsyncIterator()
        var received = Data()
        if let chunk = try await chunks.next() { received.append(chunk) }
        #expect(transport.httpsPoolCounts.busy == 1)
        // Every pool made now shuts down every idle one: all but the download's.
        for host in 3...12 {
            _ = try await Self.get(try Self.url(host: host, "hello.txt"), through: transport, othersInFlight: 1)
            #expect(transport.httpsPoolCounts.all == 2, "the download's pool and the one just used")
        }
        // The download's connection was not cut: its next mebibyte arrives and matches the file.
        while received.count < 1 << 20, let chunk = try await chunks.next() { received.append(chunk) }
        let handle = try FileHandle(forReadingFrom: file)
        defer { try? handle.close() }
        let expected = try handle.read(upToCount: received.count)
        #expect(received == expected)
        response.body.cancel()
        #expect(await eventually { transport.httpsPoolCounts.busy == 0 })
        // Idle now, it goes with the next pool made.
        _ = try await Self.get(try Self.url(host: 13, "hello.txt"), through: transport)
        #expect(transport.httpsPoolCounts.all == 1)
    }

    @Test func poolsIdleLongerThanTheLifetimeAreShutDown() async throws {
        guard await NginxServer.isRunning() else { Issue.record(NginxServer.skipMessage); return }
        let transport = try Self.transport(maximumIdlePools: 32, idleLifetime: 2)
        defer { Task { try? await transport.shutdown() } }
        let started = ContinuousClock.now
        for host in 2...6 {
            _ = try await Self.get(try Self.url(host: host, "hello.txt"), through: transport)
        }
        if ContinuousClock.now - started < .seconds(2) {
            #expect(transport.httpsPoolCounts.all == 5, "under the maximum and within the lifetime, all stay")
        }
        // Waiting out the lifetime is what this test is about.
        try await Task.sleep(until: ContinuousClock.now + .milliseconds(2_100))
        _ = try await Self.get(try Self.url(host: 7, "hello.txt"), through: transport)
        #expect(transport.httpsPoolCounts.all == 1, "the five idle for longer than the lifetime went")
    }
}
#endif
