import Foundation
import Synchronization
import Testing
@testable import Courier
import CourierTestServer
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What both façades can say about one finished request.
struct FacadeOutcome: Sendable {
    var status: Int?
    var finalURL: URL?
    var body: Data?
    var error: (any Error)?
    var bytesReceived: Int64
    var retryCount: Int
}

/// One request through one façade. Both run on `ExchangeDriver`; this suite runs the same cases through each so
/// that a behaviour cannot differ between them unnoticed.
enum Facade: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case sessionTask
    case operation

    var testDescription: String { rawValue }

    /// What to do to the request while it runs.
    enum Interference: Sendable {
        case none
        /// Pause once the body passed `bytes`, wait, resume.
        case pause(atBytes: Int64)
        /// Cancel once the body passed `bytes`.
        case cancel(atBytes: Int64)
    }

    func run(
        _ path: String, credential: URLCredential? = nil, serializer: (any URLResponseSerialization)? = nil,
        interference: Interference = .none
    ) async throws -> FacadeOutcome {
        let request = URLRequest(url: try await Fixtures.url(path), timeoutInterval: 30)
        switch self {
        case .sessionTask: return try await runTask(request, credential: credential, serializer: serializer, interference: interference)
        case .operation: return await runOperation(request, credential: credential, serializer: serializer, interference: interference)
        }
    }

    private func runTask(
        _ request: URLRequest, credential: URLCredential?, serializer: (any URLResponseSerialization)?, interference: Interference
    ) async throws -> FacadeOutcome {
        let manager = SessionFixtures.manager()
        defer { manager.invalidateSessionCancelingTasks(false) }
        manager.responseSerializer = serializer ?? HTTPResponseSerializer()
        if let credential {
            manager.setTaskDidReceiveAuthenticationChallengeBlock { _, _, _ in .useCredential(credential) }
        }
        let completion = Signal<(any Error)?>()
        let task = manager.dataTask(with: request) { _, _, error in completion.fire(error) }
        let fired = Atomic<Bool>(false)
        let watcher: Task<Void, Never>? = switch interference {
        case .none: nil
        case .pause(let threshold), .cancel(let threshold):
            Task { [updates = task.progressUpdates()] in
                for await progress in updates where progress.totalBytes >= threshold {
                    guard !fired.exchange(true, ordering: .acquiringAndReleasing) else { continue }
                    if case .cancel = interference {
                        task.cancel()
                    } else {
                        task.suspend()
                        // Resumed once the suspension holds: the body reader has stopped (or the body had all come).
                        _ = await eventually { task.exchange?.isHoldingBody == true || task.exchange?.phase.isTerminal == true }
                        task.resume()
                    }
                }
            }
        }
        task.resume()
        let error = await completion.wait()
        await watcher?.value
        return FacadeOutcome(
            status: (task.response as? HTTPURLResponse)?.statusCode, finalURL: task.response?.url,
            body: task.responseData, error: error, bytesReceived: task.countOfBytesReceived, retryCount: task.retryCount
        )
    }

    private func runOperation(
        _ request: URLRequest, credential: URLCredential?, serializer: (any URLResponseSerialization)?, interference: Interference
    ) async -> FacadeOutcome {
        let operation = HTTPRequestOperation(request: request)
        operation.transport = Fixtures.transport
        operation.credential = credential
        if let serializer { operation.responseSerializer = serializer }
        let paused = Atomic<Bool>(false)
        switch interference {
        case .none:
            break
        case .pause(let threshold):
            PauseTrigger(threshold: threshold).install(on: operation) { operation in
                operation.pause()
                paused.store(true, ordering: .releasing)
            }
        case .cancel(let threshold):
            PauseTrigger(threshold: threshold).install(on: operation) { $0.cancel() }
        }
        let queue = OperationQueue()
        queue.addOperation(operation)
        if case .pause = interference {
            _ = await eventually { paused.load(ordering: .acquiring) || operation.isFinished }
            // Resumed once the pause holds: the attempt it stopped has ended, so the next one asks for a range.
            _ = await eventually { operation.driver.exchange?.phase.isTerminal != false }
            operation.resume()
        }
        await operation.finished()
        // `responseObject` is what the serializer made; its error (if any) is the operation's.
        _ = operation.responseObject
        return FacadeOutcome(
            status: operation.response?.statusCode, finalURL: operation.response?.url, body: operation.responseData,
            error: operation.error, bytesReceived: operation.totalBytesRead, retryCount: operation.retryCount
        )
    }
}

@Suite("Driver: both façades, the same behaviour", .timeLimit(.minutes(1)))
struct FacadeParityTests {
    @Test(arguments: Facade.allCases)
    func redirectsAreFollowedToTheFinalURL(facade: Facade) async throws {
        let outcome = try await facade.run("/redirect/2")
        #expect(outcome.error == nil)
        #expect(outcome.status == 200)
        #expect(outcome.finalURL?.path == "/get")
    }

    @Test(arguments: Facade.allCases)
    func anAuthenticationChallengeIsAnswered(facade: Facade) async throws {
        let user = "u\(UUID().uuidString.prefix(8))"
        let credential = URLCredential(user: user, password: "secret", persistence: .none)
        let outcome = try await facade.run("/basic-auth/\(user)/secret", credential: credential)
        #expect(outcome.error == nil)
        #expect(outcome.status == 200)
    }

    @Test(arguments: Facade.allCases)
    func aPauseAndResumeKeepsTheExactBytes(facade: Facade) async throws {
        let length = 4 << 20
        let outcome = try await facade.run("/range/\(length)", interference: .pause(atBytes: 1 << 20))
        #expect(outcome.error == nil)
        #expect(outcome.body?.count == length)
        #expect(outcome.body?.sha256Hex == OperationFixtures.rangeSHA256(count: length))
        #expect(outcome.bytesReceived == Int64(length), "the progress total counts every byte once")
    }

    @Test(arguments: Facade.allCases)
    func aCancelEndsWithCancelled(facade: Facade) async throws {
        let outcome = try await facade.run("/range/\(32 << 20)", interference: .cancel(atBytes: 256 << 10))
        #expect((outcome.error as? URLError)?.code == .cancelled)
        #expect(outcome.bytesReceived < Int64(32 << 20))
    }

    @Test(arguments: Facade.allCases)
    func aSerializerFailureIsTheError(facade: Facade) async throws {
        let outcome = try await facade.run("/bytes/64?seed=4", serializer: JSONResponseSerializer())
        #expect(outcome.status == 200)
        #expect(outcome.error is ResponseSerializationError, "\(String(describing: outcome.error))")
    }

    @Test(arguments: Facade.allCases)
    func progressTotalsMatchTheBody(facade: Facade) async throws {
        let outcome = try await facade.run("/stream-bytes/300000?seed=6&chunk_size=10000")
        #expect(outcome.error == nil)
        #expect(outcome.body?.count == 300_000)
        #expect(outcome.bytesReceived == 300_000)
        #expect(outcome.retryCount == 0)
    }
}
