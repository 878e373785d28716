@testable import Courier
import Foundation
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Issue #13, items 9 and 10: waiting in the engine's queue for a connection is not idleness (the
/// idle timeout starts on a connection; a separate connection-wait limit covers the queue), and a
/// request that finds its kept-alive connection closed by the server is sent again once on a new
/// connection when it is idempotent — never a POST.
@Suite("Data safety: connection waits and stale connections", .timeLimit(.minutes(3)))
struct ConnectionTimingTests {
    /// Six trickling 1.5 s responses over two connections with a 1 s idle timeout: the four that wait
    /// in the queue (up to 3 s) do not time out.
    @Test func queuedRequestsDoNotTimeOutWhileWaiting() async throws {
        try await Self.trickle(6, connectTimeout: 10, rounds: .seconds(4)..<(.seconds(9)))
    }

    /// Sends `count` trickling 1.5 s responses at once over two connections (1 s idle timeout, the engine's connect
    /// timeout `connectTimeout`): every one succeeds, in a time within `rounds`, on two connections at most.
    private static func trickle(_ count: Int, connectTimeout: TimeInterval, rounds: Range<Duration>) async throws {
        let server = try await HostileRoutes.startServer()
        var settings = EngineTransport.Configuration()
        settings.maximumConnectionsPerHost = 2
        settings.connectTimeout = connectTimeout
        let transport = EngineTransport(configuration: settings)
        defer { Task { try? await transport.shutdown(); await server.stop() } }
        let start = ContinuousClock.now
        try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<count {
                group.addTask {
                    let request = URLRequest(url: server.url("/slow?seconds=1.5"), timeoutInterval: 1)
                    return try await Exchange(request: request, configuration: .init(transport: transport)).result().data?.count ?? 0
                }
            }
            for try await count in group { #expect(count == 100) }
        }
        let elapsed = ContinuousClock.now - start
        #expect(rounds.contains(elapsed), "\((count + 1) / 2) rounds of 1.5 s took \(elapsed)")
        #expect(Set(server.requests.map(\.connection)).count == 2, "two connections at most")
    }

    /// Issue #32, item 9: AsyncHTTPClient fails a request that waited in its pool's queue for its connect timeout
    /// (`getConnectionFromPoolTimeout`), which made the connection wait end after 10 s whatever
    /// `connectionWaitTimeout` said. Eight trickling 1.5 s responses over two connections with a 1 s connect
    /// timeout: four rounds, the last queued 4.5 s, every one succeeds; the connection wait still ends a request
    /// that waits longer than it allows.
    @Test func theEnginesConnectTimeoutDoesNotEndTheConnectionWait() async throws {
        try await Self.trickle(8, connectTimeout: 1, rounds: .seconds(5.5)..<(.seconds(12)))

        let (error, waited) = try await Self.behindABusyConnection("/slow?seconds=2", timeout: 5, connectionWaitTimeout: 1.5, connectTimeout: 0.5)
        #expect(error?.code == .timedOut)
        #expect(error?.localizedDescription.contains("waiting 1.5 s for a connection") == true, "\(String(describing: error))")
        #expect(waited >= .seconds(1.3) && waited < .seconds(1.95), "failed after \(waited)")
    }

    /// Sends `path` (idle timeout `timeout`) on a transport with one connection per host while a 2 s response holds
    /// that connection; returns the second request's error and how long it took from being sent.
    private static func behindABusyConnection(
        _ path: String, timeout: TimeInterval, connectionWaitTimeout: TimeInterval = 300, connectTimeout: TimeInterval = 10
    ) async throws -> (error: URLError?, elapsed: Duration) {
        let server = try await HostileRoutes.startServer()
        var settings = EngineTransport.Configuration()
        settings.maximumConnectionsPerHost = 1
        settings.connectionWaitTimeout = connectionWaitTimeout
        settings.connectTimeout = connectTimeout
        let transport = EngineTransport(configuration: settings)
        defer { Task { try? await transport.shutdown(); await server.stop() } }
        async let first = Exchange(request: URLRequest(url: server.url("/slow?seconds=2"), timeoutInterval: 5), configuration: .init(transport: transport)).result()
        #expect(await eventually { server.requests.count == 1 }, "the first request holds the only connection")
        let start = ContinuousClock.now
        let error = await #expect(throws: URLError.self) {
            _ = try await Exchange(request: URLRequest(url: server.url(path), timeoutInterval: timeout), configuration: .init(transport: transport)).result()
        }
        let elapsed = ContinuousClock.now - start
        #expect(try await first.data?.count == 100)
        return (error, elapsed)
    }

    @Test func theConnectionWaitHasItsOwnLimit() async throws {
        let (error, waited) = try await Self.behindABusyConnection("/slow?seconds=2", timeout: 5, connectionWaitTimeout: 0.5)
        #expect(error?.code == .timedOut)
        #expect(error?.localizedDescription.contains("waiting 0.5 s for a connection") == true, "\(String(describing: error))")
        #expect(waited >= .milliseconds(400) && waited < .seconds(1.9), "failed after \(waited)")
    }

    /// A request that waited in the queue still times out one idle timeout after its server goes quiet (not at the
    /// far connection-wait deadline).
    @Test func idlenessAfterAWaitIsStillDetected() async throws {
        // 100 bytes, then nothing for 30 s.
        let (error, elapsed) = try await Self.behindABusyConnection("/file/quiet?stall=100", timeout: 1)
        #expect(error?.code == .timedOut)
        #expect(error?.localizedDescription.contains("without data") == true, "\(String(describing: error))")
        #expect(elapsed >= .seconds(2.5) && elapsed < .seconds(6), "timed out after \(elapsed): about 2 s queued, then 1 s idle")
    }

    @Test func sessionsWaitForAConnectionWithoutTimingOut() async throws {
        let server = try await HostileRoutes.startServer()
        defer { Task { await server.stop() } }
        var configuration = SessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = 2
        configuration.timeoutIntervalForRequest = 1
        let manager = URLSessionManager(configuration: configuration)
        manager.completionQueue = SessionFixtures.completionQueue
        defer { manager.invalidateSessionCancelingTasks(true) }
        try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<6 {
                group.addTask { try await manager.data(for: URLRequest(url: server.url("/slow?seconds=1.5"))).0.count }
            }
            for try await count in group { #expect(count == 100) }
        }
    }

    /// The issues' batch (#13 item 9, #32 item 9), scaled: 20 two-second downloads at concurrency 20 from one host
    /// (the engine keeps 8 connections) with `--timeout 1`, which is the idle timeout and caps the engine's connect
    /// timeout too: all succeed, in three rounds, though the last four wait about 4 s for a connection.
    @Test func aBatchLargerThanTheConnectionLimitSucceeds() async throws {
        let server = try await HostileRoutes.startServer()
        defer { Task { await server.stop() } }
        let folder = try Fixtures.temporaryDirectory("wait")
        defer { try? FileManager.default.removeItem(at: folder) }
        let list = (0..<20).map { "\(server.url("/slow?seconds=2&n=\($0)"))\tfile\($0).txt" }.joined(separator: "\n")
        let listFile = folder.appendingPathComponent("list.txt")
        try list.write(to: listFile, atomically: true, encoding: .utf8)
        let start = ContinuousClock.now
        let outcome = try await ChildProcess.run("courier", ["batch", listFile.path, "--concurrency", "20", "--timeout", "1", "--output-dir", folder.path])
        let elapsed = ContinuousClock.now - start
        #expect(outcome.status == 0, "\(outcome.standardOutput)\n\(outcome.standardError)")
        #expect(outcome.standardOutput.contains("20 of 20 downloads succeeded"), "\(outcome.standardOutput)")
        #expect(elapsed >= .seconds(6) && elapsed < .seconds(18), "three rounds of 2 s took \(elapsed)")
        #expect(Set(server.requests.map(\.connection)).count <= 8, "eight connections at most")
    }

    /// `/stale` answers a 302 on a fresh connection and closes it when the follow-up arrives on it: 20 runs, all
    /// answered, each after one retry on a new connection.
    @Test func aStaleKeptAliveConnectionIsRetriedOnce() async throws {
        let server = try await HostileRoutes.startServer()
        defer { Task { await server.stop() } }
        var retries = 0
        for _ in 0..<20 {
            let exchange = Exchange(request: URLRequest(url: server.url("/stale")), configuration: .init(transport: Fixtures.transport))
            let result = try await exchange.result()
            #expect(result.response.statusCode == 200 && result.data == Data("ok".utf8))
            retries += result.metrics.transactions.map(\.staleConnectionRetries).reduce(0, +)
        }
        #expect(retries >= 20, "each run met at least one stale connection; \(retries) retries counted")
        #expect(server.requests.filter { $0.indexOnConnection > 0 }.count == retries, "every retry answers a request the server dropped")
    }

    @Test func aPostOnAStaleConnectionIsNotSentAgain() async throws {
        let server = try await HostileRoutes.startServer()
        // One connection per host: the second POST waits until the first one's connection is back in the pool and
        // goes out on it. With more, a busy machine can finish the first exchange before the engine has put its
        // connection back, and the second POST goes out on a fresh connection that nothing closes.
        var settings = EngineTransport.Configuration()
        settings.maximumConnectionsPerHost = 1
        let transport = EngineTransport(configuration: settings)
        defer { Task { try? await transport.shutdown(); await server.stop() } }
        func post() async throws -> ExchangeResult {
            var request = URLRequest(url: server.url("/stale-post"))
            request.httpMethod = "POST"
            request.httpBody = Data("once".utf8)
            return try await Exchange(request: request, configuration: .init(transport: transport)).result()
        }
        #expect(try await post().data == Data("ok".utf8))
        let error = await #expect(throws: URLError.self) { _ = try await post() }
        #expect(error?.code == .networkConnectionLost)
        #expect(error?.localizedDescription.contains("closed a reused connection") == true, "\(String(describing: error))")
        #expect(server.requests(to: "/stale-post").count == 2, "the second POST was sent once")
    }

    @Test func sessionsAndTheCLIRetryToo() async throws {
        let server = try await HostileRoutes.startServer()
        defer { Task { await server.stop() } }
        let manager = SessionFixtures.manager()
        defer { manager.invalidateSessionCancelingTasks(true) }
        let metrics = Recorder<SessionTaskMetrics>()
        manager.setTaskDidFinishCollectingMetricsBlock { _, _, collected in metrics.append(collected) }
        let (data, _) = try await manager.data(for: URLRequest(url: server.url("/stale")))
        #expect(data == Data("ok".utf8))
        #expect(metrics.all.first?.transactionMetrics.map(\.staleConnectionRetries) == [0, 1])

        let outcome = try await CLIRequestTests.courier(["get", "-v", server.url("/stale").absoluteString])
        #expect(outcome.status == 0, "\(outcome.standardError)")
        #expect(outcome.standardOutput.hasSuffix("\n\nok"), "\(outcome.standardOutput.debugDescription)")
        #expect(outcome.standardError.contains("sent again on a new connection"), "\(outcome.standardError)")
    }
}
