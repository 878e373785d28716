import Dispatch
import Foundation
import Synchronization
import Testing
@testable import Courier
import CourierTestServer
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// AFNetworking's own notifications are posted by default; `CourierNotifications` turns them off (each is a queue hop
/// nobody needs when nobody observes), and a task or an operation posts all of its notifications or none.
@Suite("Task and operation notifications: on by default, off on request, all or none", .serialized,
       .timeLimit(.minutes(1)))
struct CourierNotificationsTests {
    /// Records the names of `names` posted about objects that `matches` accepts, on the default center.
    final class Observed: Sendable {
        private let log = EventLog()
        private nonisolated(unsafe) let tokens: [any NSObjectProtocol]

        init(_ names: [Notification.Name], matching matches: @escaping @Sendable (Any?) -> Bool) {
            let log = self.log
            tokens = names.map { name in
                NotificationCenter.default.addObserver(forName: name, object: nil, queue: nil) { note in
                    if matches(note.object) { log.append(note.name.rawValue) }
                }
            }
        }

        var names: [String] { log.all }
        func remove() { tokens.forEach(NotificationCenter.default.removeObserver) }
    }

    /// Lets `queue` run what was queued on it so far.
    func drain(_ queue: DispatchQueue) async {
        await withCheckedContinuation { continuation in queue.async { continuation.resume() } }
    }

    @Test("operations post start and finish by default, and neither while switched off; the completion still runs")
    func operationSwitch() async throws {
        #expect(CourierNotifications.postsOperationNotifications)
        let posting = try await OperationFixtures.operation(URLConnectionOperation.self, "/bytes/8?seed=1")
        let observed = Observed([.courierOperationDidStart, .courierOperationDidFinish]) { $0 as AnyObject? === posting }
        defer { observed.remove() }
        await OperationFixtures.run([posting])

        CourierNotifications.postsOperationNotifications = false
        defer { CourierNotifications.postsOperationNotifications = true }
        let quiet = try await OperationFixtures.operation(URLConnectionOperation.self, "/bytes/8?seed=2")
        let silenced = Observed([.courierOperationDidStart, .courierOperationDidFinish]) { $0 as AnyObject? === quiet }
        defer { silenced.remove() }
        let completed = Recorder<Bool>()
        quiet.completionBlock = { completed.append(true) }
        await OperationFixtures.run([quiet])
        #expect(await eventually { completed.all == [true] }, "the completion block ran")
        await drain(.main)

        #expect(observed.names == ["CourierOperationDidStart", "CourierOperationDidFinish"])
        #expect(silenced.names.isEmpty)
        #expect(quiet.responseData == TestPayload.bytes(count: 8, seed: 2))
    }

    @Test("an operation decides when it is made: switched off while it runs, it still posts its finish")
    func operationDecidesWhenMade() async throws {
        let operation = try await OperationFixtures.operation(URLConnectionOperation.self, "/slow-body/4?delay=0.3")
        let observed = Observed([.courierOperationDidStart, .courierOperationDidFinish]) { $0 as AnyObject? === operation }
        defer { observed.remove(); CourierNotifications.postsOperationNotifications = true }
        OperationQueue().addOperation(operation)
        #expect(await eventually { operation.isExecuting })
        CourierNotifications.postsOperationNotifications = false
        await operation.finished()
        await drain(.main)
        #expect(observed.names == ["CourierOperationDidStart", "CourierOperationDidFinish"])
    }

    @Test("session tasks post resume, suspend and complete by default, and none while switched off")
    func taskSwitch() async throws {
        let manager = SessionFixtures.manager()
        manager.responseSerializer = HTTPResponseSerializer()
        let names: [Notification.Name] = [.courierTaskDidResume, .courierTaskDidSuspend, .courierTaskDidComplete]
        let observed = Observed(names) { ($0 as? SessionTask)?.manager === manager }
        defer { observed.remove(); CourierNotifications.postsTaskNotifications = true }

        let posting = manager.dataTask(with: try await SessionFixtures.request("/bytes/8?seed=3"), completionHandler: nil)
        posting.resume()
        posting.suspend()
        posting.resume()
        _ = try await posting.value
        await drain(SessionFixtures.completionQueue)
        #expect(observed.names == ["CourierTaskDidResume", "CourierTaskDidSuspend", "CourierTaskDidResume",
                                   "CourierTaskDidComplete"])

        CourierNotifications.postsTaskNotifications = false
        let handled = Recorder<Data?>()
        let quiet = manager.dataTask(with: try await SessionFixtures.request("/bytes/8?seed=4")) { _, object, _ in
            handled.append(object as? Data)
        }
        quiet.resume()
        quiet.suspend()
        quiet.resume()
        _ = try await quiet.value
        #expect(await eventually { handled.all.count == 1 }, "the completion handler ran")
        await drain(SessionFixtures.completionQueue)
        #expect(observed.names.count == 4, "nothing more was posted: \(observed.names)")
        #expect(handled.all == [TestPayload.bytes(count: 8, seed: 4)])
    }

    @Test("an async call with task notifications off sends nothing to the completion queue")
    func asyncCallWithoutNotificationsSkipsTheCompletionQueue() async throws {
        let manager = SessionFixtures.manager()
        manager.responseSerializer = HTTPResponseSerializer()
        // A completion queue that runs nothing: a block sent to it stays in the group.
        let held = DispatchQueue(label: "held completion queue")
        held.suspend()
        let group = DispatchGroup()
        manager.completionQueue = held
        manager.completionGroup = group
        defer { held.resume() }

        CourierNotifications.postsTaskNotifications = false
        defer { CourierNotifications.postsTaskNotifications = true }
        let quiet = manager.dataTask(with: try await SessionFixtures.request("/bytes/8?seed=5"), completionHandler: nil)
        #expect(try await quiet.value == TestPayload.bytes(count: 8, seed: 5))
        #expect(group.wait(timeout: .now()) == .success, "no block waits on the completion queue")

        // With the notifications on, the did-complete is posted there (so the group holds one block).
        CourierNotifications.postsTaskNotifications = true
        let posting = manager.dataTask(with: try await SessionFixtures.request("/bytes/8?seed=6"), completionHandler: nil)
        _ = try await posting.value
        #expect(group.wait(timeout: .now()) == .timedOut, "the notifications went to the completion queue")
    }
}
