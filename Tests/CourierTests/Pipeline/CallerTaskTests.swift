import Foundation
import Synchronization
import Testing
@testable import Courier
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The async APIs run the pipeline in the caller's task, against the in-process server.
@Suite("Pipeline: stages run in the caller's task")
struct CallerTaskTests {
    enum Trace {
        @TaskLocal static var id: String?
    }

    /// Copies the caller's trace id into a header and notes which task it ran in.
    final class TraceStage: ExchangeStage {
        private let tasks = Mutex<[Int]>([])
        var taskHashes: [Int] { tasks.withLock { $0 } }

        func respond(to request: StageRequest, next: Next) async throws -> StageResponse {
            let current = withUnsafeCurrentTask { $0?.hashValue }
            if let current { tasks.withLock { $0.append(current) } }
            var request = request
            if let id = Trace.id { request.urlRequest.setValue(id, forHTTPHeaderField: "X-Trace") }
            return try await next(request)
        }
    }

    static func manager(stages: [any ExchangeStage]) async throws -> HTTPSessionManager {
        var configuration = SessionConfiguration()
        configuration.transport = Fixtures.transport
        configuration.stages = stages
        return HTTPSessionManager(baseURL: try await Fixtures.url("/"), configuration: configuration)
    }

    @Test func aSessionRequestRunsItsStagesInTheCallersTaskWithItsTaskLocals() async throws {
        let stage = TraceStage()
        let manager = try await Self.manager(stages: [stage])
        defer { manager.invalidateSessionCancelingTasks(true) }

        let caller = withUnsafeCurrentTask { $0?.hashValue }
        let (object, _) = try await Trace.$id.withValue("trace-42") { try await manager.get("headers") }
        let headers = try #require((object as? [String: Any])?["headers"] as? [String: Any])
        let echoed = headers.first { $0.key.lowercased() == "x-trace" }?.value as? String
        #expect(echoed == "trace-42", "the task-local value reached the stage and the server")
        #expect(stage.taskHashes == [try #require(caller)], "the stage ran in the calling task itself")

        let (untraced, _) = try await manager.get("headers")
        let second = try #require((untraced as? [String: Any])?["headers"] as? [String: Any])
        #expect(!second.keys.contains { $0.lowercased() == "x-trace" }, "outside withValue there is no trace id")
    }

    @Test func cancellingTheCallerCancelsTheSessionRequest() async throws {
        let manager = try await Self.manager(stages: [])
        defer { manager.invalidateSessionCancelingTasks(true) }

        let call = Task { _ = try await manager.get("delay/5") }
        // Cancelled once its request is out (the server holds it for 5 s).
        #expect(await eventually { manager.tasks.first?.exchange?.phase == .awaitingResponse })
        let cancelled = ContinuousClock.now
        call.cancel()
        await #expect { _ = try await call.value } throws: { ($0 as? URLError)?.code == .cancelled }
        #expect(ContinuousClock.now - cancelled < .seconds(2))
        #expect(manager.tasks.isEmpty)
    }

    @Test func exchangeCancelReachesARequestAwaitedInAnotherTask() async throws {
        let exchange = Exchange(request: URLRequest(url: try await Fixtures.url("/delay/5")), configuration: .init(transport: Fixtures.transport))
        let waiting = Task { try await exchange.result() }
        // The request reaches the server, which holds it for 5 s.
        #expect(await eventually { exchange.phase == .awaitingResponse })
        let cancelled = ContinuousClock.now
        exchange.cancel()
        await #expect { _ = try await waiting.value } throws: { ($0 as? URLError)?.code == .cancelled }
        #expect(ContinuousClock.now - cancelled < .seconds(2))
        #expect(exchange.phase == .cancelled)
    }

    @Test func aSecondCallerOfResultWaitsForTheFirstRun() async throws {
        let exchange = Exchange(request: URLRequest(url: try await Fixtures.url("/delay/1")), configuration: .init(transport: Fixtures.transport))
        async let first = exchange.result()
        #expect(await eventually { exchange.phase != .idle }, "the first caller runs the exchange")
        let second = try await exchange.result()
        #expect(try await first.response.statusCode == 200)
        #expect(second.response.statusCode == 200)
        #expect(exchange.metrics.transactions.count == 1, "one request served both callers")
    }
}

/// Operations run the same pipeline: a stage given to the manager sees each operation's request.
@Suite("Pipeline: operations take stages too")
struct OperationStageTests {
    @Test func aManagersStageReachesEveryOperationAndItsCopies() async throws {
        let stage = ProbeStage("mine") { $0.urlRequest.setValue("from-a-stage", forHTTPHeaderField: "X-Stage") }
        let manager = HTTPRequestOperationManager(baseURL: try await Fixtures.url("/"))
        manager.transport = Fixtures.transport
        manager.stages = [stage]
        let request = URLRequest(url: try await Fixtures.url("/headers"))

        let operation = manager.httpRequestOperation(with: request, success: nil, failure: nil)
        let copy = try #require(operation.copy() as? HTTPRequestOperation)
        for candidate in [operation, copy] {
            let done = AsyncStream<Void>.makeStream()
            candidate.completionBlock = { done.continuation.finish() }
            candidate.start()
            for await _ in done.stream {}
            let object = try #require(candidate.responseObject as? [String: Any])
            let headers = try #require(object["headers"] as? [String: Any])
            #expect(headers["X-Stage"] as? String == "from-a-stage")
        }
        #expect(stage.requests.count == 2)
    }
}
