import Crypto
import Foundation
import Synchronization
import Testing
@testable import Courier
import CourierTestServer
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Helpers shared by the operation tests.
enum OperationFixtures {
    /// A GET operation for `path` on the plain test server, on the shared test transport.
    static func operation<Kind: URLConnectionOperation>(_ kind: Kind.Type, _ path: String) async throws -> Kind {
        let operation = Kind(request: URLRequest(url: try await Fixtures.url(path), timeoutInterval: 30))
        operation.transport = Fixtures.transport
        return operation
    }

    /// Enqueues `operations` on `queue` and waits for all to finish.
    static func run(_ operations: [URLConnectionOperation], on queue: OperationQueue = OperationQueue()) async {
        for operation in operations { queue.addOperation(operation) }
        for operation in operations { await operation.finished() }
    }

    /// The SHA-256 of the test server's `/range/:n` body, computed in slices (the body repeats the
    /// alphabet, so every slice of a multiple of 26 bytes is the same).
    static func rangeSHA256(count: Int) -> String {
        let slice = TestPayload.rangeContent(count: 26 * 40_000)
        var hasher = SHA256()
        var remaining = count
        while remaining >= slice.count {
            hasher.update(data: slice)
            remaining -= slice.count
        }
        hasher.update(data: TestPayload.rangeContent(count: remaining))
        return hasher.finalize().map { String(format: "%02x", $0) }.joined()
    }
}

/// Collects values from any thread.
final class Recorder<Value: Sendable>: Sendable {
    private let values = Mutex<[Value]>([])

    func append(_ value: Value) { values.withLock { $0.append(value) } }
    var all: [Value] { values.withLock { $0 } }
}

/// Makes one operation's progress block pause it once, after `threshold` bytes.
final class PauseTrigger: Sendable {
    private let fired = Atomic<Bool>(false)
    let threshold: Int64

    init(threshold: Int64) { self.threshold = threshold }

    var hasFired: Bool { fired.load(ordering: .acquiring) }

    func install(on operation: URLConnectionOperation, action: @escaping @Sendable (URLConnectionOperation) -> Void = { $0.pause() }) {
        operation.setDownloadProgressBlock { [self] _, total, _ in
            guard total >= threshold, !fired.exchange(true, ordering: .acquiringAndReleasing) else { return }
            action(operation)
        }
    }
}

/// A start that runs a hook first (from `userInfo["onStart"]`).
final class StartProbeOperation: URLConnectionOperation, @unchecked Sendable {
    override func start() {
        (userInfo["onStart"] as? @Sendable () -> Void)?()
        super.start()
    }
}

/// Whether the caller runs on the main dispatch queue. (`Thread.isMainThread` does not tell:
/// under `dispatchMain` the main queue's blocks run on another thread.)
enum MainQueue {
    private static let key: DispatchSpecificKey<Bool> = {
        let key = DispatchSpecificKey<Bool>()
        DispatchQueue.main.setSpecific(key: key, value: true)
        return key
    }()

    static var isCurrent: Bool { DispatchQueue.getSpecific(key: key) == true }
}
