import CourierImage
import Foundation
import Testing

/// `courier tour` run as a child process: it starts its own servers on loopback, so the test only
/// checks what it printed and how it exited.
@Suite("CLI: courier tour", .timeLimit(.minutes(2)))
struct CLITourTests {
    /// The step titles, in order, as the tour numbers them.
    static let steps = [
        "JSON GET", "Form POST", "JSON POST", "Multipart upload with progress", "Download paused and resumed",
        "Batch of operations", "Redirects", "Basic authentication", "Digest authentication", "Cookies", "Timeout",
        "Certificate pinning accepted", "Wrong pin rejected", "Reachability",
        "Images: a coalesced download, decoded, made a thumbnail",
    ]

    @Test func everyStepBehavesAndTheTourExitsZero() async throws {
        let outcome = try await ChildProcess.run("courier", ["tour"], timeout: .seconds(90))
        let output = outcome.standardOutput
        #expect(outcome.status == 0 && !outcome.terminatedBySignal, "stderr: \(outcome.standardError)\nstdout: \(output)")
        #expect(outcome.standardError.isEmpty, "\(outcome.standardError)")

        let lines = output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        for (index, title) in Self.steps.enumerated() {
            let header = String(format: "%2d. %@", index + 1, title)
            let position = try #require(lines.firstIndex(of: header), "no step line \(header.debugDescription) in:\n\(output)")
            // The step's verdict is the first line after its details that is not indented further.
            let verdict = lines[(position + 1)...].first { !$0.hasPrefix("      ") }
            #expect(verdict?.hasPrefix("    ✔ ") == true, "\(title): \(verdict ?? "no verdict")")
        }
        #expect(!output.contains("✘"))
        #expect(output.contains("All \(Self.steps.count) steps behaved as expected"))

        // Details that show the behaviour, not only the verdicts.
        #expect(lines.contains { $0.contains("↑") && $0.hasSuffix("(100%)") }, "upload progress reached 100%")
        let digests = lines.filter { $0.contains("SHA-256 paused and resumed:") || $0.contains("SHA-256 in one go:") }
            .compactMap { $0.split(separator: " ").last.map(String.init) }
        #expect(digests.count == 2 && digests[0].count == 64 && digests[0] == digests[1], "\(digests)")
        #expect(lines.contains { $0.contains("Range: bytes=") && $0.contains("If-Range:") && $0.hasSuffix("→ 206") })
        #expect(lines.filter { $0.hasSuffix("/5 finished") }.count == 5, "batch progress")
        #expect(lines.contains { $0.contains("then Basic ") && $0.hasSuffix("→ 200") })
        #expect(lines.contains { $0.contains("then Digest ") && $0.hasSuffix("→ 200") })
        if ImageDecoder.canDecode {
            #expect(lines.contains { $0.hasSuffix("→ 1 request, one decode") }, "five image callers shared one request")
            #expect(lines.contains { $0.contains("PNG 16x16 decoded to RGBA, thumbnail 8x8") })
        }
        #expect(lines.contains { $0.contains("serverCertificateUntrusted") })
    }
}
