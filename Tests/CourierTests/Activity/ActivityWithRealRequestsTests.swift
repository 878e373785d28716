import Synchronization
import Foundation
import Testing
@testable import Courier
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Activity indicator with real requests", .serialized)
struct ActivityWithRealRequestsTests {
    @Test func aLongRequestShowsTheIndicatorAndItGoesAwayAfterward() async throws {
        let manager = NetworkActivityIndicatorManager()
        manager.activationDelay = 0.2
        manager.completionDelay = 0.1
        let changes = Mutex<[Bool]>([])
        manager.setNetworkingActivityActionWithBlock { visible in changes.withLock { $0.append(visible) } }
        manager.isEnabled = true
        defer { manager.isEnabled = false }

        let exchange = Exchange(request: URLRequest(url: try await Fixtures.url("/delay/1")), configuration: .init(transport: Fixtures.transport))
        let result = Task { try await exchange.result() }
        try await Task.sleep(for: .milliseconds(700))
        #expect(manager.isNetworkActivityIndicatorVisible, "shown after the activation delay")
        _ = try await result.value
        try await Task.sleep(for: .milliseconds(500))
        #expect(!manager.isNetworkActivityIndicatorVisible)
        #expect(changes.withLock { $0 } == [true, false])
    }

    @Test func aShortRequestNeverShowsIt() async throws {
        let manager = NetworkActivityIndicatorManager()
        manager.activationDelay = 1.0
        let changes = Mutex<[Bool]>([])
        manager.setNetworkingActivityActionWithBlock { visible in changes.withLock { $0.append(visible) } }
        manager.isEnabled = true
        defer { manager.isEnabled = false }
        _ = try await Fixtures.exchange("/get")
        try await Task.sleep(for: .milliseconds(1300))
        #expect(changes.withLock { $0 }.isEmpty)
    }
}
