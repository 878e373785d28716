@testable import Courier
import Foundation
import Synchronization
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Issue #32, item 5: a request's deadline bounds its retries' waits. A `503` asking for `Retry-After: 20` under a
/// deadline of 8 or 10 s fails at once with ``RetryDeadlineError`` instead of waiting 20 s (`courier get --max-time`,
/// a session's resource timeout), and a cancelled exchange stops waiting for its retry.
@Suite("Resilience: retries within the deadline", .timeLimit(.minutes(2)))
struct RetryDeadlineTests {
    /// Answers every request with `503` and `Retry-After: 20`.
    static func startServer() async throws -> HostileServer {
        try await HostileServer.start { _, connection in
            try await connection.writeHead("503 Service Unavailable", [("Retry-After", "20"), ("Content-Length", "4")])
            try await connection.write("busy")
            return .keepAlive
        }
    }

    @Test func aRetryPastTheSessionsResourceTimeoutFailsAtOnce() async throws {
        let server = try await Self.startServer()
        defer { Task { await server.stop() } }
        let manager = SessionFixtures.manager { configuration in
            configuration.timeoutIntervalForResource = 10
            configuration.interceptors = [RetryPolicy(retryLimit: 3, budget: nil)]
        }
        defer { manager.invalidateSessionCancelingTasks(true) }
        let started = ContinuousClock.now
        await #expect(throws: RetryDeadlineError.self) {
            _ = try await manager.data(for: URLRequest(url: server.url("/busy")))
        }
        // Without the check the wait runs into the resource timeout (10 s) and fails with URLError(.timedOut).
        #expect(ContinuousClock.now - started < .seconds(8), "the retry's wait was not skipped")
        #expect(server.requests(to: "/busy").count == 1)
    }

    @Test func aCancelledExchangeStopsWaitingForItsRetry() async throws {
        let server = try await HostileServer.start { _, connection in
            try await connection.writeHead("503 Service Unavailable", [("Retry-After", "15"), ("Content-Length", "0")])
            return .keepAlive
        }
        defer { Task { await server.stop() } }
        var configuration = ExchangeConfiguration(transport: Fixtures.transport)
        configuration.interceptors = [RetryPolicy(retryLimit: 3, budget: nil)]
        let waiting = Atomic<Bool>(false)
        configuration.handlers.willRetry = { _ in waiting.store(true, ordering: .releasing) }
        let exchange = Exchange(request: URLRequest(url: server.url("/busy")), configuration: configuration)
        let started = ContinuousClock.now
        // Cancelled from another task, as `operation.cancel()` or a resource timer does, once the wait has begun.
        let canceller = Task {
            _ = await eventually { waiting.load(ordering: .acquiring) }
            exchange.cancel()
        }
        await #expect(throws: URLError.self) { _ = try await exchange.result() }
        await canceller.value
        #expect(ContinuousClock.now - started < .seconds(12), "the wait of 15 s went on after the cancel")
    }

    @Test func courierGetMaxTimeBoundsARetryAfter() async throws {
        let server = try await Self.startServer()
        defer { Task { await server.stop() } }
        let started = ContinuousClock.now
        let outcome = try await ChildProcess.run("courier", ["get", "--max-time", "8", "--retry", "3", server.url("/busy").absoluteString])
        // Without the check --max-time stops the wait after 8 s with "took longer than --max-time".
        #expect(ContinuousClock.now - started < .seconds(8), "courier waited for the retry until --max-time")
        #expect(outcome.status == 4, "\(outcome.standardError)")
        #expect(outcome.standardError.contains("past the request's deadline"), "\(outcome.standardError)")
    }

    /// A proxy that takes the connection and never answers its CONNECT: `--timeout 1` bounds the tunnel's setup
    /// (it took the engine's 10 s connect timeout).
    @Test func courierTimeoutBoundsAProxyTunnelThatNeverOpens() async throws {
        let proxy = try await HostileServer.start { _, _ in
            try await Task.sleep(for: .seconds(20))
            return .close
        }
        defer { Task { await proxy.stop() } }
        let started = ContinuousClock.now
        let outcome = try await ChildProcess.run("courier", [
            "get", "--timeout", "1", "--proxy", "http://127.0.0.1:\(proxy.url("/").port ?? 0)", "https://127.0.0.1:9/never",
        ])
        #expect(ContinuousClock.now - started < .seconds(6), "the tunnel's setup outlasted --timeout")
        #expect(outcome.status == 4, "\(outcome.standardError)")
        #expect(proxy.requests.first?.method == "CONNECT", "the proxy saw \(proxy.requests.map(\.method))")
    }
}
