#if os(Linux)
@testable import Courier
import CourierQueue
import Foundation
import Testing

/// `requiresNetwork` against real kernel events: the queue's reachability watches a network namespace the test
/// makes (root and iproute2 needed), where the watched address has no route until the test adds one.
@Suite("RequestQueue and reachability", .serialized, .timeLimit(.minutes(2)),
       .enabled(if: NetworkNamespaceFixture.isSupported, "needs root"))
struct QueueReachabilityTests {
    @Test("a job that requires the network waits while there is no route, then runs when one appears; others run")
    func aJobWaitsForARoute() async throws {
        try await NetworkNamespaceFixture.with { ns in
            try ns.addVethPair("qA", "qB", address: "10.213.70.1/24")
            let manager = NetworkReachabilityManager("10.213.71.7", in: ns)
            manager.startMonitoring()
            defer { manager.stopMonitoring() }
            #expect(await manager.waitForStatus(.notReachable) != nil)

            let fixture = try await QueueFixture.start(QueueConfiguration(
                pollInterval: 0.05, retryPolicy: QueueFixture.policy(), reachability: manager))
            defer { Task { await fixture.stop() } }
            let waiting = try await fixture.queue.enqueue(
                try fixture.request("/anything?needs-network", method: "POST"), options: JobOptions(requiresNetwork: true))
            let free = try await fixture.queue.enqueue(try fixture.request("/anything?any-time", method: "POST"))
            let drain = Task { try await fixture.queue.drain() }

            #expect(try await eventually(timeout: .seconds(5)) { try await fixture.queue.job(free)?.state == .succeeded })
            // Nothing must happen here: ten poll intervals without a route.
            let log = fixture.server.requestLog
            #expect(await throughout(.milliseconds(500)) { !log.requests.contains { $0.target.hasSuffix("needs-network") } })
            let held = try #require(try await fixture.queue.job(waiting))
            #expect(held.state == .pending)
            #expect(held.attempts == 0, "an attempt was spent while there was no route")

            let routed = Date()
            try ns.inside("route", "add", "10.213.71.0/24", "via", "10.213.70.2", "dev", "qA")
            try await drain.value
            let job = try #require(try await fixture.queue.job(waiting))
            #expect(job.state == .succeeded)
            #expect(job.attempts == 1)
            #expect(Date().timeIntervalSince(routed) < 3, "the job ran \(Date().timeIntervalSince(routed)) s after the route appeared")
        }
    }
}
#endif
