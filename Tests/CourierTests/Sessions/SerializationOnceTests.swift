import Foundation
import Synchronization
import Testing
@testable import Courier
import CourierTesting
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A session task's body is serialized once, in the task, never on the completion (main) queue.
@Suite("Sessions: a response is serialized once, off the completion queue")
struct SerializationOnceTests {
    /// A JSON serializer that counts its calls and notes whether any ran on the main thread.
    final class CountingSerializer: JSONResponseSerializer, @unchecked Sendable {
        let calls = Atomic(0)
        let onMain = Atomic(false)

        override func responseObject(for response: URLResponse?, data: Data?) throws -> Any? {
            calls.add(1, ordering: .relaxed)
            if Thread.isMainThread { onMain.store(true, ordering: .relaxed) }
            return try super.responseObject(for: response, data: data)
        }
    }

    static func manager(_ serializer: CountingSerializer) -> HTTPSessionManager {
        var configuration = SessionConfiguration()
        configuration.transport = StubTransport(.json(#"{"answer": 42}"#))
        let manager = HTTPSessionManager(baseURL: URL(string: "https://api.example/"), configuration: configuration)
        manager.responseSerializer = serializer
        return manager
    }

    @Test func theAsyncVerbAndTheNotificationShareOneSerialization() async throws {
        let serializer = CountingSerializer()
        let manager = Self.manager(serializer)
        defer { manager.invalidateSessionCancelingTasks(true) }

        // The completion (and its notification, which carries the object) is delivered after the verb returns.
        let delivered = Signal<Bool>()
        let observer = NotificationCenter.default.addObserver(forName: .courierTaskDidComplete, object: nil, queue: nil) { note in
            if (note.object as? SessionTask)?.manager === manager { delivered.fire(true) }
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        let (object, _) = try await manager.get("answer")
        #expect((object as? [String: Any])?["answer"] as? Int == 42)
        _ = await delivered.wait()
        #expect(serializer.calls.load(ordering: .relaxed) == 1)
        let ranOnMain = serializer.onMain.load(ordering: .relaxed)
        #expect(!ranOnMain)
    }

    @Test func theBlockVerbGetsTheObjectOnTheMainQueueSerializedElsewhere() async throws {
        let serializer = CountingSerializer()
        let manager = Self.manager(serializer)
        defer { manager.invalidateSessionCancelingTasks(true) }

        let answer: Int? = await withCheckedContinuation { continuation in
            _ = manager.GET("answer", parameters: nil, success: { _, object in
                continuation.resume(returning: (object as? [String: Any])?["answer"] as? Int)
            }, failure: { _, _ in continuation.resume(returning: nil) })
        }
        #expect(answer == 42)
        #expect(serializer.calls.load(ordering: .relaxed) == 1)
        let ranOnMain = serializer.onMain.load(ordering: .relaxed)
        #expect(!ranOnMain, "the main queue only received the object")
    }
}
