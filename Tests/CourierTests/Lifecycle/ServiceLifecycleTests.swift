import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A session as a swift-service-lifecycle service, in a child process (`CourierServiceProbe`) whose `ServiceGroup`
/// receives a real SIGTERM: the request in flight gets the session's grace period, one outlasting it is cancelled,
/// a leased operation beside them follows the same grace, and the process ends by the group (exit 0), not by a
/// re-raised signal.
@Suite("Service lifecycle", .timeLimit(.minutes(1)))
struct ServiceLifecycleTests {
    struct Outcome {
        let lines: [String]
        let status: Int32
        let byExit: Bool
        let elapsed: Duration
    }

    private func runProbe(grace: String, path: String) async throws -> Outcome {
        let probe = try ChildProcess("CourierServiceProbe", [grace, path])
        try await probe.waitFor("READY\n")
        let sent = ContinuousClock.now
        probe.send(SIGTERM)
        let outcome = try await probe.finish()
        return Outcome(
            lines: outcome.standardOutput.split(separator: "\n").map(String.init),
            status: outcome.status,
            byExit: !outcome.terminatedBySignal,
            elapsed: ContinuousClock.now - sent
        )
    }

    @Test("a request that finishes within the grace period completes, then the group ends and the process exits 0")
    func finishesWithinTheGracePeriod() async throws {
        let outcome = try await runProbe(grace: "20", path: "/delay/1")
        #expect(outcome.byExit && outcome.status == 0, "\(outcome.lines)")
        #expect(Set(outcome.lines.dropFirst().prefix(2)) == ["TASK 200", "OPERATION 0"], "\(outcome.lines)")
        #expect(outcome.lines.first == "READY" && outcome.lines.last == "GROUP ENDED")
        #expect(outcome.elapsed < .seconds(10), "the group waited for the request, not for the 20 s grace period")
    }

    @Test("a request outlasting the grace period is cancelled after it, and the process still exits 0")
    func isCancelledAfterTheGracePeriod() async throws {
        let outcome = try await runProbe(grace: "1", path: "/delay/30")
        #expect(outcome.byExit && outcome.status == 0, "\(outcome.lines)")
        #expect(outcome.lines.contains("TASK \(URLError.Code.cancelled.rawValue)"), "\(outcome.lines)")
        #expect(outcome.lines.contains("EXPIRED"))
        #expect(outcome.lines.contains("OPERATION \(URLError.Code.cancelled.rawValue)"))
        #expect(outcome.lines.last == "GROUP ENDED")
        #expect(outcome.elapsed >= .seconds(1))
        #expect(outcome.elapsed < .seconds(10))
    }
}
