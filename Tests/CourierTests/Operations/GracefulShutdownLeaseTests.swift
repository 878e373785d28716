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
        let directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let candidates = [directory, directory.deletingLastPathComponent()].map { $0.appendingPathComponent("CourierLeaseProbe") }
        let executable = try #require(candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) }, "CourierLeaseProbe not built next to the tests")
        let process = Process()
        process.executableURL = executable
        process.arguments = [grace, path]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let reader = pipe.fileHandleForReading
        var output = ""
        while !output.contains("READY\n"), process.isRunning {
            let chunk = reader.availableData
            if chunk.isEmpty { break }
            output += String(decoding: chunk, as: UTF8.self)
        }
        try #require(output.contains("READY"), "the probe did not start: \(output)")
        let sent = ContinuousClock.now
        process.terminate()
        while true {
            let chunk = reader.availableData
            if chunk.isEmpty { break }
            output += String(decoding: chunk, as: UTF8.self)
        }
        process.waitUntilExit()
        let elapsed = ContinuousClock.now - sent
        #expect(process.terminationReason == .uncaughtSignal)
        return Outcome(lines: output.split(separator: "\n").map(String.init), signal: process.terminationStatus, elapsed: elapsed)
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
