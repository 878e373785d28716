import Foundation
import Synchronization
import Testing
@testable import Courier
import CourierTestServer
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("URLConnectionOperation in an OperationQueue", .timeLimit(.minutes(1)))
struct OperationQueueTests {
    @Test("a dependent operation starts only after its dependency finished")
    func dependencies() async throws {
        let first = try await OperationFixtures.operation(URLConnectionOperation.self, "/slow-body/10?delay=0.2")
        let second = try await OperationFixtures.operation(StartProbeOperation.self, "/bytes/10")
        let sawFirstFinished = Recorder<Bool>()
        second.userInfo["onStart"] = { @Sendable in sawFirstFinished.append(first.isFinished) } as @Sendable () -> Void
        second.addDependency(first)
        #expect(!second.isReady)
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 4
        await OperationFixtures.run([second, first], on: queue)
        #expect(sawFirstFinished.all == [true])
        #expect(first.error == nil && second.error == nil)
        #expect(second.responseData?.count == 10)
    }

    @Test("maxConcurrentOperationCount is honoured", arguments: [1, 4])
    func maximumConcurrency(limit: Int) async throws {
        var operations: [URLConnectionOperation] = []
        for _ in 0..<(limit * 2) {
            operations.append(try await OperationFixtures.operation(URLConnectionOperation.self, "/slow-body/10?delay=0.15"))
        }
        let all = operations
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = limit
        let sampler = sampleMaximum { all.filter(\.isExecuting).count }
        await OperationFixtures.run(operations, on: queue)
        sampler.cancel()
        let peak = await sampler.value
        #expect(peak <= limit)
        #expect(peak >= min(limit, 2))
        #expect(operations.allSatisfy { $0.isFinished && $0.error == nil })
    }

    @Test("cancelled before start: finishes with URLError(.cancelled), completion runs once")
    func cancelBeforeStart() async throws {
        let operation = try await OperationFixtures.operation(URLConnectionOperation.self, "/bytes/10")
        let calls = Atomic<Int>(0)
        operation.completionBlock = { calls.add(1, ordering: .relaxed) }
        operation.cancel()
        #expect(operation.isReady)
        await OperationFixtures.run([operation])
        #expect((operation.error as? URLError)?.code == .cancelled)
        #expect(operation.response == nil)
        #expect(await eventually { calls.load(ordering: .relaxed) == 1 })
    }

    @Test("cancelled during the transfer: stops at once")
    func cancelDuringTransfer() async throws {
        let operation = try await OperationFixtures.operation(URLConnectionOperation.self, "/slow-body/100?delay=20")
        let queue = OperationQueue()
        queue.addOperation(operation)
        #expect(await eventually { operation.isExecuting })
        let started = ContinuousClock.now
        operation.cancel()
        await operation.finished()
        #expect(ContinuousClock.now - started < .seconds(5))
        #expect((operation.error as? URLError)?.code == .cancelled)
        #expect(operation.isCancelled && operation.isFinished && !operation.isExecuting)
    }

    @Test("cancelled after finishing: nothing changes")
    func cancelAfterFinish() async throws {
        let operation = try await OperationFixtures.operation(URLConnectionOperation.self, "/bytes/100?seed=3")
        await OperationFixtures.run([operation])
        operation.cancel()
        #expect(!operation.isCancelled)
        #expect(operation.error == nil)
        #expect(operation.responseData?.count == 100)
    }

    @Test("an operation paused before it started does not hold the queue; cancelled, it leaves")
    func pausedBeforeStartDoesNotBlock() async throws {
        let paused = try await OperationFixtures.operation(URLConnectionOperation.self, "/bytes/10")
        let other = try await OperationFixtures.operation(URLConnectionOperation.self, "/bytes/10")
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        paused.pause()
        queue.addOperation(paused)
        queue.addOperation(other)
        await other.finished()
        #expect(other.error == nil)
        #expect(paused.isPaused && !paused.isReady && !paused.isExecuting && !paused.isFinished)
        paused.cancel()
        await paused.finished()
        #expect((paused.error as? URLError)?.code == .cancelled)
        #expect(await eventually { queue.operationCount == 0 })
    }

    @Test("cancelled while paused mid-transfer: finishes with URLError(.cancelled) and leaves the queue")
    func cancelWhilePaused() async throws {
        let operation = try await OperationFixtures.operation(URLConnectionOperation.self, "/slow-body/100?delay=20")
        let queue = OperationQueue()
        queue.addOperation(operation)
        #expect(await eventually { operation.isExecuting })
        operation.pause()
        #expect(operation.isPaused && !operation.isReady && !operation.isExecuting && !operation.isFinished)
        operation.cancel()
        await operation.finished()
        #expect((operation.error as? URLError)?.code == .cancelled)
        #expect(await eventually { queue.operationCount == 0 })
    }

    @Test("pause before start, then resume: runs normally")
    func pauseBeforeStart() async throws {
        let operation = try await OperationFixtures.operation(URLConnectionOperation.self, "/bytes/64?seed=9")
        operation.pause()
        #expect(operation.isPaused && !operation.isReady)
        let queue = OperationQueue()
        queue.addOperation(operation)
        #expect(await throughout(.milliseconds(50)) { operation.isPaused }, "a paused operation does not start")
        operation.resume()
        await operation.finished()
        #expect(operation.responseData == TestPayload.bytes(count: 64, seed: 9))
    }
}
