@testable import Courier
import Foundation
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The transport's HTTPS connection pools (one engine client per policy, host, port and proxy) are bounded: idle ones
/// are shut down when it makes a new one, those carrying a request are not. Against nginx, which listens on
/// 127.0.0.1 to 127.0.0.65: 65 hosts to the pools.
@Suite("Transport: HTTPS connection pools bounded over many hosts", .serialized)
struct BoundedPoolTests {
    /// A transport trusting nginx's CA for every loopback address (its certificate names 127.0.0.1 only).
    static func transport(maximumIdlePools: Int, idleLifetime: TimeInterval = 3600) throws -> AsyncHTTPClientTransport {
        let policy = SecurityPolicy.default
        policy.trustedRootCertificates = try NginxServer.certificates(at: NginxServer.certificateAuthorityPath)
        policy.validatesDomainName = false
        var configuration = AsyncHTTPClientTransport.Configuration()
        configuration.securityPolicy = policy
        configuration.maximumIdlePools = maximumIdlePools
        configuration.idlePoolLifetime = idleLifetime
        return AsyncHTTPClientTransport(configuration: configuration)
    }

    /// nginx's `file` on the loopback address 127.0.0.`host` (1 to 65).
    static func url(host: Int, _ file: String) throws -> URL {
        let port = try #require(NginxServer.environment["COURIER_NGINX_PORT"])
        return try #require(URL(string: "https://127.0.0.\(host):\(port)/\(file)"))
    }

    /// GETs `url`, then waits until the engine has ended the request too (its pool counts it until then), with
    /// `othersInFlight` requests still carried.
    static func get(_ url: URL, through transport: AsyncHTTPClientTransport, othersInFlight: Int = 0) async throws -> Data {
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
            #expect(transport.httpsPoolCounts.all <= 5, "four idle pools and the one just used")
        }
        // Forty hosts, each pool with a connection kept alive for 60 s: without the bound, forty more descriptors.
        let closed = await eventually(timeout: .seconds(10)) { ProcessStats.openDescriptors() - before < 10 }
        #expect(closed, "\(ProcessStats.openDescriptors() - before) descriptors more than before")
    }

    @Test func aPoolCarryingARequestIsNotShutDown() async throws {
        guard await NginxServer.isRunning() else { Issue.record(NginxServer.skipMessage); return }
        // nginx sends /slow/ at 1 MiB/s: 1.5 MiB take about 1.5 s.
        let name = "bounded-\(UUID().uuidString).bin"
        let file = try NginxInterop.servedFile("slow/\(name)")
        try NginxInterop.writeServedFile(file, size: 3 << 19, modified: Date())
        defer { try? FileManager.default.removeItem(at: file) }
        let transport = try Self.transport(maximumIdlePools: 0, idleLifetime: 0)
        defer { Task { try? await transport.shutdown() } }

        let slow = Task {
            let response = try await transport.send(TransportRequest(url: try Self.url(host: 2, "slow/\(name)")))
            return try await response.body.collect()
        }
        #expect(await eventually { transport.httpsPoolCounts.busy == 1 })
        // Every pool made now shuts down every idle one: all but the slow download's.
        for host in 3...12 {
            _ = try await Self.get(try Self.url(host: host, "hello.txt"), through: transport, othersInFlight: 1)
            #expect(transport.httpsPoolCounts.all == 2, "the slow download's pool and the one just used")
        }
        let body = try await slow.value
        #expect(body == (try Data(contentsOf: file)))
        #expect(await eventually { transport.httpsPoolCounts.busy == 0 })
        // Idle now, it goes with the next pool made.
        _ = try await Self.get(try Self.url(host: 13, "hello.txt"), through: transport)
        #expect(transport.httpsPoolCounts.all == 1)
    }

    @Test func poolsIdleLongerThanTheLifetimeAreShutDown() async throws {
        guard await NginxServer.isRunning() else { Issue.record(NginxServer.skipMessage); return }
        let transport = try Self.transport(maximumIdlePools: 32, idleLifetime: 0.5)
        defer { Task { try? await transport.shutdown() } }
        for host in 2...6 {
            _ = try await Self.get(try Self.url(host: host, "hello.txt"), through: transport)
        }
        #expect(transport.httpsPoolCounts.all == 5, "under the maximum and within the lifetime, all stay")
        try await Task.sleep(for: .milliseconds(600))
        _ = try await Self.get(try Self.url(host: 7, "hello.txt"), through: transport)
        #expect(transport.httpsPoolCounts.all == 1, "the five idle for longer than the lifetime went")
    }

    @Test func residentSizeStaysFlatOverThousandsOfHosts() async throws {
        guard await NginxServer.isRunning() else { Issue.record(NginxServer.skipMessage); return }
        let transport = try Self.transport(maximumIdlePools: 8)
        defer { Task { try? await transport.shutdown() } }
        // 65 addresses in turn with at most 8 idle pools: every request after the first eight makes a new pool (and
        // a TLS connection), as a crawler meeting that many distinct hosts would.
        var sizes: [Int: Int] = [:]
        for request in 1...2_000 {
            _ = try await Self.get(try Self.url(host: 1 + request % 65, "hello.txt"), through: transport)
            if request == 500 || request == 2_000 { sizes[request] = ProcessStats.residentBytes() }
        }
        #expect(transport.httpsPoolCounts.all <= 9)
        let early = try #require(sizes[500]), late = try #require(sizes[2_000])
        print("bounded pools: resident size \(early >> 10) KiB after 500 hosts, \(late >> 10) KiB after 2,000")
        #expect(Double(late) <= Double(early) * 1.1, "resident size grew from \(early >> 10) to \(late >> 10) KiB")
    }
}
