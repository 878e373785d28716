import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The lease is tested in a child process (`CourierLeaseProbe`), which receives a real SIGTERM.
@Suite("Graceful-shutdown lease", .timeLimit(.minutes(1)))
struct GracefulShutdownLeaseTests {
    struct Outcome {
        let lines: [String]
        let signal: Int32
        let elapsed: Duration
    }

    /// Starts the probe, waits for READY, sends SIGTERM and collects its output.
    private func runProbe(grace: String, path: String) async throws -> Outcome {
        let probe = try ChildProcess("CourierLeaseProbe", [grace, path])
        try await probe.waitFor("READY\n")
        let sent = ContinuousClock.now
        probe.send(SIGTERM)
        let outcome = try await probe.finish()
        let elapsed = ContinuousClock.now - sent
        #expect(outcome.terminatedBySignal)
        return Outcome(lines: outcome.standardOutput.split(separator: "\n").map(String.init), signal: outcome.status, elapsed: elapsed)
    }

    @Test("an operation still running after the grace period: handler, then cancel, then the process stops")
    func expires() async throws {
        let outcome = try await runProbe(grace: "0.3", path: "/slow-body/10?delay=30")
        #expect(outcome.lines == ["READY", "EXPIRED", "COMPLETED -999"])
        #expect(outcome.signal == SIGTERM)
        #expect(outcome.elapsed >= .milliseconds(300))
        #expect(outcome.elapsed < .seconds(10))
    }

    @Test("an operation that finishes within the grace period completes normally, then the process stops")
    func finishesInTime() async throws {
        let outcome = try await runProbe(grace: "20", path: "/slow-body/10?delay=0.4")
        #expect(outcome.lines == ["READY", "COMPLETED 0"])
        #expect(outcome.signal == SIGTERM)
        #expect(outcome.elapsed < .seconds(10))
    }
}
