import Synchronization
import Foundation
import Testing
@testable import Courier
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The request notifications cost two main-queue hops per request, so they are posted only while someone asked.
@Suite("Request notifications: posted only while someone listens", .serialized)
struct RequestNotificationsTests {
    /// Counts the start and finish notifications about requests to `path` on the default center.
    final class Counter: Sendable {
        private let counts = Counts()
        private nonisolated(unsafe) let tokens: [any NSObjectProtocol]

        final class Counts: Sendable {
            let value = Mutex((started: 0, finished: 0))
        }

        init(path: String) {
            let counts = self.counts
            let matches: @Sendable (Notification) -> Bool = { note in
                (note.userInfo?[CourierNotificationKey.request] as? URLRequest)?.url?.path == path
            }
            tokens = [
                NotificationCenter.default.addObserver(forName: .courierRequestDidStart, object: nil, queue: nil) { note in
                    if matches(note) { counts.value.withLock { $0.started += 1 } }
                },
                NotificationCenter.default.addObserver(forName: .courierRequestDidFinish, object: nil, queue: nil) { note in
                    if matches(note) { counts.value.withLock { $0.finished += 1 } }
                },
            ]
        }
        var started: Int { counts.value.withLock { $0.started } }
        var finished: Int { counts.value.withLock { $0.finished } }
        func remove() { tokens.forEach(NotificationCenter.default.removeObserver) }
    }

    /// Lets the main queue run what was posted to it so far.
    func drainMainQueue() async {
        await withCheckedContinuation { continuation in DispatchQueue.main.async { continuation.resume() } }
    }

    @Test("by default a request posts neither notification")
    func offByDefault() async throws {
        #expect(!RequestNotifications.isEnabled)
        let counter = Counter(path: "/anything/quiet")
        defer { counter.remove() }
        _ = try await Fixtures.exchange("/anything/quiet")
        await drainMainQueue()
        #expect(counter.started == 0 && counter.finished == 0)
    }

    @Test("isEnabled posts both for every request, on the main queue, until it is switched off")
    func explicitSwitch() async throws {
        let counter = Counter(path: "/anything/loud")
        defer { counter.remove() }
        RequestNotifications.isEnabled = true
        _ = try await Fixtures.exchange("/anything/loud")
        _ = try await Fixtures.exchange("/anything/loud")
        RequestNotifications.isEnabled = false
        await drainMainQueue()
        #expect(counter.started == 2 && counter.finished == 2)
        _ = try await Fixtures.exchange("/anything/loud")
        await drainMainQueue()
        #expect(counter.started == 2 && counter.finished == 2)
    }

    @Test("an enabled activity indicator manager turns them on while it is enabled, and only then")
    func activityManagerListens() async throws {
        let counter = Counter(path: "/anything/indicator")
        defer { counter.remove() }
        let manager = NetworkActivityIndicatorManager()
        manager.isEnabled = true
        manager.isEnabled = true
        _ = try await Fixtures.exchange("/anything/indicator")
        manager.isEnabled = false
        await drainMainQueue()
        #expect(counter.started == 1 && counter.finished == 1)
        _ = try await Fixtures.exchange("/anything/indicator")
        await drainMainQueue()
        #expect(counter.started == 1 && counter.finished == 1, "enabling twice counted once; disabling released it")
    }
}
