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
        #expect(await eventually { manager.isNetworkActivityIndicatorVisible }, "shown after the activation delay")
        #expect(try await result.value.response.statusCode == 200)
        #expect(await eventually { changes.withLock { $0 } == [true, false] }, "\(changes.withLock { $0 })")
    }

    /// AFNetworking 2.0's default: even a short request shows the indicator, which goes away 0.17 s later.
    @Test func byDefaultAShortRequestShowsIt() async throws {
        let manager = NetworkActivityIndicatorManager()
        let changes = Mutex<[Bool]>([])
        manager.setNetworkingActivityActionWithBlock { visible in changes.withLock { $0.append(visible) } }
        manager.isEnabled = true
        defer { manager.isEnabled = false }
        _ = try await Fixtures.exchange("/get")
        #expect(await eventually { changes.withLock { $0 } == [true, false] }, "\(changes.withLock { $0 })")
    }

    /// With an activation delay, a request shorter than it never shows the indicator — while the manager did count
    /// it (so the test fails if requests are not tracked at all).
    @Test func withAnActivationDelayAShortRequestNeverShowsIt() async throws {
        let manager = NetworkActivityIndicatorManager()
        manager.activationDelay = 1.0
        let changes = Mutex<[Bool]>([])
        manager.setNetworkingActivityActionWithBlock { visible in changes.withLock { $0.append(visible) } }
        manager.isEnabled = true
        defer { manager.isEnabled = false }
        let request = Task { try await Fixtures.exchange("/delay/0.3") }
        #expect(await eventually { manager.activityCount == 1 }, "the request was not counted")
        _ = try await request.value
        #expect(await eventually { manager.activityCount == 0 })
        // The delay runs from the request's start: past it, the indicator would have shown by now.
        #expect(await throughout(.milliseconds(1100)) { changes.withLock { $0 }.isEmpty }, "\(changes.withLock { $0 })")
    }
}
