import Foundation
import Testing
@testable import Courier
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#endif

@Suite("Transport failures surface as URLError")
struct TransportFailureTests {
    func send(_ string: String, timeout: TimeInterval = 30) async throws -> ExchangeResult {
        let url = try #require(URL(string: string))
        return try await Exchange(
            request: URLRequest(url: url, timeoutInterval: timeout),
            configuration: ExchangeConfiguration(transport: Fixtures.transport)
        ).result()
    }

    func code(_ error: any Error) -> URLError.Code? { (error as? URLError)?.code }

    @Test func connectionRefused() async throws {
        let port = try Self.closedPort()
        let started = ContinuousClock.now
        do {
            _ = try await send("http://127.0.0.1:\(port)/get")
            Issue.record("expected a failure")
        } catch {
            #expect(code(error) == .cannotConnectToHost)
            #expect((error as? URLError)?.failingURL?.port == port)
        }
        // Well under the 10 s connect timeout: the refusal is not retried (a loaded CI machine can take a second or two).
        #expect(ContinuousClock.now - started < .seconds(5), "refusal is reported at once")
    }

    /// The engine fails a request on a client that is shutting down without calling its delegate; every request that
    /// races ``EngineTransport/shutdown()`` must still end (before the fix, one in a few runs waited for ever).
    /// The requests run in tasks of their own, so that one that never ends fails the test instead of hanging it.
    @Test func requestsRacingShutdownAllEnd() async throws {
        let url = try await Fixtures.url("/get")
        for round in 0..<20 {
            let transport = EngineTransport()
            _ = try await transport.send(TransportRequest(url: url)).body.collect()
            let (ended, ending) = AsyncStream.makeStream(of: Void.self)
            for _ in 0..<20 {
                Task {
                    _ = try? await transport.send(TransportRequest(url: url)).body.collect()
                    ending.yield()
                }
            }
            try await transport.shutdown()
            let deadline = Task {
                try await Task.sleep(for: .seconds(10))
                ending.finish()
            }
            var count = 0
            for await _ in ended {
                count += 1
                if count == 20 { break }
            }
            deadline.cancel()
            try #require(count == 20, "round \(round): \(20 - count) requests racing the shutdown never ended")
            // After the shutdown, a request is refused at once.
            await #expect(throws: URLError.self) { _ = try await transport.send(TransportRequest(url: url)) }
        }
    }

    @Test func readTimeoutBeforeTheHead() async throws {
        let url = try await Fixtures.url("/delay/5").absoluteString
        let started = ContinuousClock.now
        await #expect { _ = try await send(url, timeout: 1) } throws: { code($0) == .timedOut }
        let elapsed = ContinuousClock.now - started
        #expect(elapsed >= .milliseconds(900) && elapsed < .seconds(4))
    }

    @Test func readTimeoutMidBody() async throws {
        let url = try await Fixtures.url("/drip?duration=6&numbytes=3&delay=0").absoluteString
        await #expect { _ = try await send(url, timeout: 1) } throws: { code($0) == .timedOut }
    }

    @Test func serverClosingMidBodyKeepsTheBytesInTheFile() async throws {
        let file = Fixtures.temporaryFile()
        defer { try? FileManager.default.removeItem(at: file) }
        var request = URLRequest(url: try await Fixtures.url("/abort/100000?total=300000"))
        request.timeoutInterval = 10
        var configuration = ExchangeConfiguration(transport: Fixtures.transport)
        configuration.sink = .file(file)
        await #expect {
            _ = try await Exchange(request: request, configuration: configuration).result()
        } throws: { code($0) == .networkConnectionLost }
        let size = try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int
        #expect(size == 100_000)
    }

    @Test(arguments: ["ftp://127.0.0.1/file", "file:///etc/passwd", "mailto:someone@example.test"])
    func unsupportedSchemes(url: String) async throws {
        await #expect { _ = try await send(url) } throws: { code($0) == .unsupportedURL }
    }

    /// URLs Foundation parses but that name no host (every one of them parses, so none is skipped).
    @Test(arguments: ["http:///nohost", "http://", "http://:80/", "http://@/", "http:/x"])
    func malformedURLs(url: String) async throws {
        await #expect { _ = try await send(url) } throws: { code($0) == .badURL }
    }

    /// A port on 127.0.0.1 with nothing listening: bound, then closed.
    static func closedPort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        try #require(bound)
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
