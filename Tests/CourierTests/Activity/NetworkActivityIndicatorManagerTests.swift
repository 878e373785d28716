@testable import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Synchronization
import Testing

/// The manager with a manual clock and synchronous delivery of its action block.
@Suite("Network activity indicator manager")
struct NetworkActivityIndicatorManagerTests {
    final class Harness: Sendable {
        let scheduler = ManualActivityScheduler()
        let center = NotificationCenter()
        let log = VisibilityLog()
        let manager: NetworkActivityIndicatorManager

        /// Most tests here use AFNetworking 3's activation delay of 1 s; 2.0's default is none.
        init(activationDelay: TimeInterval = 1.0) {
            manager = NetworkActivityIndicatorManager(center: center, scheduler: scheduler, deliver: { $0() })
            manager.activationDelay = activationDelay
            let log = self.log
            manager.setNetworkingActivityActionWithBlock { visible in log.record(visible) }
            manager.isEnabled = true
        }

        var visibility: [Bool] { log.values }
    }

    @Test func defaults() {
        let manager = NetworkActivityIndicatorManager()
        #expect(!manager.isEnabled)
        #expect(manager.activationDelay == 0)
        #expect(manager.completionDelay == 0.17)
        #expect(!manager.isNetworkActivityIndicatorVisible)
        #expect(NetworkActivityIndicatorManager.shared !== manager)
    }

    @Test func byDefaultAShortRequestShowsTheIndicatorAtOnce() {
        let harness = Harness(activationDelay: 0)
        harness.manager.incrementActivityCount()
        #expect(harness.manager.isNetworkActivityIndicatorVisible)
        #expect(harness.visibility == [true])
        harness.scheduler.advance(by: 0.01)
        harness.manager.decrementActivityCount()
        harness.scheduler.advance(by: 0.16)
        #expect(harness.manager.isNetworkActivityIndicatorVisible, "the invisibility delay")
        harness.scheduler.advance(by: 0.02)
        #expect(harness.visibility == [true, false])
    }

    @Test func shortRequestsNeverShowTheIndicator() {
        let harness = Harness()
        for _ in 0..<5 {
            harness.manager.incrementActivityCount()
            harness.scheduler.advance(by: 0.5)
            harness.manager.decrementActivityCount()
            harness.scheduler.advance(by: 0.3)
        }
        harness.scheduler.advance(by: 5)
        #expect(harness.visibility.isEmpty)
        #expect(!harness.manager.isNetworkActivityIndicatorVisible)
    }

    @Test func longRequestShowsAfterTheActivationDelay() {
        let harness = Harness()
        harness.manager.incrementActivityCount()
        harness.scheduler.advance(by: 0.99)
        #expect(!harness.manager.isNetworkActivityIndicatorVisible)
        harness.scheduler.advance(by: 0.02)
        #expect(harness.manager.isNetworkActivityIndicatorVisible)
        #expect(harness.visibility == [true])
        harness.manager.decrementActivityCount()
        harness.scheduler.advance(by: 0.16)
        #expect(harness.manager.isNetworkActivityIndicatorVisible, "stays on during the completion delay")
        harness.scheduler.advance(by: 0.02)
        #expect(!harness.manager.isNetworkActivityIndicatorVisible)
        #expect(harness.visibility == [true, false])
    }

    @Test func overlappingRequestsKeepItOn() {
        let harness = Harness()
        harness.manager.incrementActivityCount()
        harness.scheduler.advance(by: 0.6)
        harness.manager.incrementActivityCount()
        harness.scheduler.advance(by: 0.6)
        harness.manager.decrementActivityCount()
        harness.scheduler.advance(by: 2)
        #expect(harness.manager.isNetworkActivityIndicatorVisible)
        harness.manager.decrementActivityCount()
        harness.scheduler.advance(by: 1)
        #expect(harness.visibility == [true, false])
    }

    @Test func completionDelayDebouncesBackToBackRequests() {
        let harness = Harness()
        harness.manager.incrementActivityCount()
        harness.scheduler.advance(by: 1.5)
        for _ in 0..<10 {
            harness.manager.decrementActivityCount()
            harness.scheduler.advance(by: 0.1)
            harness.manager.incrementActivityCount()
            harness.scheduler.advance(by: 0.1)
        }
        #expect(harness.visibility == [true], "no flicker between requests closer than 0.17 s")
        harness.manager.decrementActivityCount()
        harness.scheduler.advance(by: 0.2)
        #expect(harness.visibility == [true, false])
    }

    @Test func customDelaysAreHonoured() {
        let harness = Harness()
        harness.manager.activationDelay = 0.1
        harness.manager.completionDelay = 0.5
        harness.manager.incrementActivityCount()
        harness.scheduler.advance(by: 0.11)
        #expect(harness.manager.isNetworkActivityIndicatorVisible)
        harness.manager.decrementActivityCount()
        harness.scheduler.advance(by: 0.4)
        #expect(harness.manager.isNetworkActivityIndicatorVisible)
        harness.scheduler.advance(by: 0.2)
        #expect(!harness.manager.isNetworkActivityIndicatorVisible)
    }

    @Test func disablingHidesAtOnceAndDecrementNeverGoesNegative() {
        let harness = Harness()
        harness.manager.decrementActivityCount()
        #expect(harness.manager.activityCount == 0)
        harness.manager.incrementActivityCount()
        harness.scheduler.advance(by: 1.1)
        harness.manager.isEnabled = false
        #expect(!harness.manager.isNetworkActivityIndicatorVisible)
        #expect(harness.visibility == [true, false])
    }

    @Test func followsCourierRequestNotifications() throws {
        let harness = Harness()
        let request = URLRequest(url: try #require(URL(string: "http://127.0.0.1:1/slow")))
        harness.center.post(name: .courierRequestDidStart, object: nil, userInfo: [CourierNotificationKey.request: request])
        #expect(harness.manager.activityCount == 1)
        harness.scheduler.advance(by: 1.2)
        #expect(harness.manager.isNetworkActivityIndicatorVisible)
        harness.center.post(name: .courierRequestDidFinish, object: nil, userInfo: [CourierNotificationKey.request: request])
        #expect(harness.manager.activityCount == 0)
        harness.scheduler.advance(by: 0.2)
        #expect(!harness.manager.isNetworkActivityIndicatorVisible)
        #expect(harness.visibility == [true, false])
    }

    @Test func releasedManagerStopsObserving() {
        let center = NotificationCenter()
        weak var released: NetworkActivityIndicatorManager?
        do {
            let manager = NetworkActivityIndicatorManager(center: center, scheduler: ManualActivityScheduler(), deliver: { $0() })
            released = manager
            manager.isEnabled = true
        }
        #expect(released == nil)
        center.post(name: .courierRequestDidStart, object: nil)
    }

    /// The default wiring: real timers and the action block on the main queue. Counted by hand,
    /// not through `NotificationCenter.default`, because request tests running in parallel post
    /// their own notifications there (the notification path is covered with a private center).
    @Test func defaultManagerDrivesTheIndicatorOnTheMainQueue() async throws {
        let manager = NetworkActivityIndicatorManager()
        manager.activationDelay = 0.05
        manager.completionDelay = 0.05
        let log = VisibilityLog()
        manager.setNetworkingActivityActionWithBlock { visible in log.record(visible) }
        manager.isEnabled = true
        manager.incrementActivityCount()
        // Waits for the events, not a time: on a busy machine the main queue can be late by more than the delays.
        #expect(await eventually { manager.isNetworkActivityIndicatorVisible && log.values == [true] })
        manager.decrementActivityCount()
        #expect(await eventually { !manager.isNetworkActivityIndicatorVisible && log.values.count == 2 })
        #expect(log.values == [true, false])
    }
}

/// What the action block was told, in order.
final class VisibilityLog: Sendable {
    private let storage = Mutex<[Bool]>([])

    func record(_ visible: Bool) { storage.withLock { $0.append(visible) } }

    var values: [Bool] { storage.withLock { $0 } }
}
