import Foundation
import Testing
@testable import courier

/// `--stream --pretty format` in time linear in the bytes: one line of 8 and of 32 MiB without a newline (the
/// in-process server's `/range`, the alphabet repeated) goes through whole and quickly (it used to take 16 s for
/// 8 MiB and never end for 32), and line-delimited JSON is still formatted line by line.
@Suite("courier --stream line by line", .timeLimit(.minutes(3)))
struct CLIStreamedLineTests {
    /// `count` bytes of the alphabet repeated: what `/range/count` sends.
    static func alphabet(count: Int) -> Data {
        var repeated = Data("abcdefghijklmnopqrstuvwxyz".utf8)
        while repeated.count < count { repeated.append(repeated) }
        return repeated.prefix(count)
    }

    /// The bound is on courier's CPU time (user + system, from bash's `time`), not the wall clock: other suites run
    /// beside this one on a small machine. The old formatter spent 15.9 s of CPU on 8 MiB.
    @Test(arguments: [(8 << 20, 5.0), (32 << 20, 15.0)])
    func oneLongLineGoesThroughWholeInLinearTime(bytes: Int, cpuSeconds: Double) async throws {
        let file = Fixtures.temporaryFile("stream-line-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        let url = try await Fixtures.url("/range/\(bytes)").absoluteString
        let courier = try ChildProcess.executable("courier").path
        let outcome = try await ShellCommand.run(
            "TIMEFORMAT='%U %S'; time '\(courier)' get --stream --pretty format '\(url)' > '\(file.path)'", timeout: .seconds(120)
        )
        #expect(outcome.status == 0, "\(outcome.standardError)")
        let times = outcome.standardError.split(whereSeparator: \.isNewline).last?.split(separator: " ").compactMap { Double($0) } ?? []
        #expect(times.count == 2, "bash's time printed: \(outcome.standardError)")
        let used = times.reduce(0, +)
        #expect(used < cpuSeconds, "\(bytes) bytes in one line took \(used) s of CPU")
        let written = try Data(contentsOf: file)
        #expect(written.count == bytes + 1, "\(written.count) bytes written")
        // Compared by digest: a failed == on megabytes makes the testing library diff them for a long time.
        #expect(written.sha256Hex == (Self.alphabet(count: bytes) + Data("\n".utf8)).sha256Hex)
    }

    @Test func jsonLinesAreStillFormattedOneByOne() async throws {
        let lines = (0..<3).map { #"{"n":\#($0),"tags":["a"]}"# }.joined(separator: "\n") + "\nnot json\n"
        let outcome = try await ChildProcess.run(
            "courier", ["post", "--stream", "--pretty", "format", "--content-type", "application/x-ndjson", try await Fixtures.url("/echo").absoluteString],
            environment: ["NO_COLOR": "1"], standardInput: Data(lines.utf8)
        )
        #expect(outcome.status == 0, "\(outcome.standardError)")
        let expected = (0..<3).map { "{\n  \"n\" : \($0),\n  \"tags\" : [\n    \"a\"\n  ]\n}\n" }.joined() + "not json\n"
        #expect(outcome.standardOutput == expected, "\(outcome.standardOutput)")
    }

    /// The splitter itself: lines across chunks, a line past the limit passed through as it arrives, the next line
    /// held again.
    @Test func theSplitterHoldsLinesUpToItsLimitAndPassesLongerOnesThrough() {
        var lines = StreamedLines(limit: 8)
        #expect(lines.append(Data("ab\ncd".utf8)) == [.line(Data("ab".utf8))])
        #expect(lines.append(Data("ef\n\ngh".utf8)) == [.line(Data("cdef".utf8)), .line(Data())])
        #expect(lines.append(Data("ijklmno".utf8)) == [.unformatted(Data("ghijklmno".utf8))])
        #expect(lines.append(Data("pq".utf8)) == [.unformatted(Data("pq".utf8))])
        #expect(lines.append(Data("r\nst".utf8)) == [.unformatted(Data("r\n".utf8))])
        #expect(lines.finish() == [.line(Data("st".utf8))])

        var endless = StreamedLines(limit: 4)
        #expect(endless.append(Data("abcdefgh".utf8)) == [.unformatted(Data("abcdefgh".utf8))])
        #expect(endless.finish() == [.unformatted(Data("\n".utf8))])
        #expect(StreamedLines.maximumLineLength == 1 << 20)
    }
}
