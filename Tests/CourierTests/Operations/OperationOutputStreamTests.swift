import Foundation
import Synchronization
import Testing
@testable import Courier
import CourierTestServer
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An operation's `outputStream`, as AFNetworking treats it: a stream that fails hands its own error
/// (`streamError`) to the failure block and to `operation.error`, and a stream without space is never
/// written to — the operation waits until it has space.
@Suite("Operations: writing to the output stream", .timeLimit(.minutes(1)))
struct OperationOutputStreamTests {
    @Test func aFailingStreamReportsItsOwnError() async throws {
        let operation = try await OperationFixtures.operation(HTTPRequestOperation.self, "/bytes/50000?seed=5")
        let stream = try #require(OutputStream(url: URL(fileURLWithPath: "/nonexistent-courier-directory/out.bin"), append: false))
        operation.outputStream = stream
        let failure = Signal<NSError>()
        operation.setCompletionBlockWithSuccess({ _, _ in Issue.record("succeeded") }, failure: { _, error in failure.fire(error as NSError) })
        operation.completionQueue = SessionFixtures.completionQueue
        OperationQueue().addOperation(operation)
        let error = await failure.wait()
        #expect(error.domain == NSPOSIXErrorDomain && error.code == Int(ENOENT), "\(error)")
        #expect((operation.error as NSError?)?.domain == NSPOSIXErrorDomain)
        #expect((operation.error as NSError?)?.code == Int(ENOENT))
    }

    @Test func aStreamWithoutSpaceIsWaitedFor() async throws {
        let operation = try await OperationFixtures.operation(HTTPRequestOperation.self, "/bytes/300000?seed=6")
        let stream = SpaceRationedStream(toMemory: ())
        operation.outputStream = stream
        OperationQueue().addOperation(operation)
        await operation.finished()
        #expect(operation.error == nil, "\(String(describing: operation.error))")
        #expect(stream.received == TestPayload.bytes(count: 300_000, seed: 6))
        #expect(stream.writesWithoutSpace == 0, "written while it had no space")
        #expect(stream.refusals > 0, "the stream had no space at times")
    }
}

/// A stream that has space only every third time it is asked, and takes at most 1,000 bytes per
/// write; it counts writes made when its last answer was "no space".
private final class SpaceRationedStream: OutputStream {
    private struct State {
        var asked = 0
        var spaceGiven = false
        var received = Data()
        var writesWithoutSpace = 0
        var refusals = 0
    }

    private let state = Mutex(State())

    var received: Data { state.withLock { $0.received } }
    var writesWithoutSpace: Int { state.withLock { $0.writesWithoutSpace } }
    var refusals: Int { state.withLock { $0.refusals } }

    required init(toMemory: ()) { super.init(toMemory: ()) }

    override var hasSpaceAvailable: Bool {
        state.withLock { state in
            state.asked += 1
            state.spaceGiven = state.asked % 3 == 0
            if !state.spaceGiven { state.refusals += 1 }
            return state.spaceGiven
        }
    }

    override func write(_ buffer: UnsafePointer<UInt8>, maxLength length: Int) -> Int {
        let count = min(length, 1000)
        state.withLock { state in
            if !state.spaceGiven { state.writesWithoutSpace += 1 }
            state.spaceGiven = false
            state.received.append(buffer, count: count)
        }
        return count
    }

    override func open() {}
    override func close() {}
    override var streamStatus: Stream.Status { .open }
}
