import CourierTestServer
import Foundation
import Testing
@testable import courier
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#endif

/// Issue #36, item 1: `courier download --split N` against nginx sending 1 MiB/s per connection (`limit_rate`): the
/// exact bytes over N connections, a SIGINT and a continuation that resumes each segment (and steals halves for the
/// connections added), a file changed between the runs, and a server without byte ranges.
@Suite(
    "courier download --split (nginx)",
    .enabled(NginxServer.skipMessage) { await NginxInterop.isRunning() },
    .timeLimit(.minutes(3))
)
struct CLISplitDownloadTests {
    /// `size` random bytes served by nginx under `folder` (`slow` or `no-ranges`), with a fixed modification date.
    static func serve(_ folder: String, size: Int, modified: Date = Date(timeIntervalSince1970: 1_700_000_000)) throws -> (name: String, file: URL) {
        let directory = try NginxInterop.servedFile(folder)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        let name = "split-\(UUID().uuidString).bin"
        let file = directory.appendingPathComponent(name)
        try NginxInterop.writeServedFile(file, size: size, modified: modified)
        return (name, file)
    }

    /// The bytes the segment record beside `output` says are on disk (0 while there is none).
    static func recorded(_ output: URL) -> Int64 {
        let record = URL(fileURLWithPath: output.path + ".courier-segments")
        guard let data = try? Data(contentsOf: record), let decoded = try? JSONDecoder().decode(SegmentRecord.self, from: data) else { return 0 }
        return decoded.plan.written
    }

    /// Starts a split download of `url` into `output`, stops it with SIGINT once the record shows 1 MiB on disk, and
    /// checks that it kept `FILE.part` and its record for `--continue`.
    static func interrupt(_ arguments: [String], output: URL) async throws {
        let child = try ChildProcess("courier", arguments)
        #expect(await eventually(timeout: .seconds(30)) { recorded(output) >= 1 << 20 }, "the record never showed 1 MiB on disk")
        child.send(SIGINT)
        let stopped = try await child.finish(timeout: .seconds(20))
        #expect(stopped.status == 130, "\(stopped.standardError)")
        #expect(stopped.standardError.contains("--continue --split"), "\(stopped.standardError)")
        #expect(!FileManager.default.fileExists(atPath: output.path), "a stopped split download took the final name")
        #expect(FileManager.default.fileExists(atPath: output.path + ".part"))
        #expect(recorded(output) > 0)
    }

    @Test func fourConnectionsFetchTheExactBytesFasterThanOne() async throws {
        let ca = try #require(NginxServer.environment["COURIER_NGINX_CA"])
        let (name, served) = try Self.serve("slow", size: 6 << 20)
        defer { try? FileManager.default.removeItem(at: served) }
        let folder = try Fixtures.temporaryDirectory("split")
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = folder.appendingPathComponent("file.bin")
        let probe = NginxInterop.probe()
        let url = try NginxInterop.url("slow/\(name)", probe: probe).absoluteString

        let started = ContinuousClock.now
        let outcome = try await ChildProcess.run("courier", ["download", "--cacert", ca, url, "-o", output.path, "--split", "4", "--min-split-size", "1M"])
        let elapsed = ContinuousClock.now - started
        #expect(outcome.status == 0, "\(outcome.standardError)")
        #expect(try Data(contentsOf: output) == (try Data(contentsOf: served)), "the split download is not the served file")
        // One connection at 1 MiB/s needs 6 s; four need about 1.5 s.
        #expect(elapsed < .seconds(4), "took \(elapsed)")
        #expect(outcome.standardError.contains("over up to 4 connections (4 segments)"), "\(outcome.standardError)")
        for leftover in [".part", ".courier-segments", ".courier-resume"] {
            #expect(!FileManager.default.fileExists(atPath: output.path + leftover), "\(leftover) left behind")
        }

        let log = try await NginxInterop.accessLog(probe: probe, count: 5)
        #expect(log.first?.range == "bytes=0-0", "\(log.map(\.description))")
        let segments = log.dropFirst()
        let quarter = (6 << 20) / 4
        #expect(Set(segments.compactMap(\.range)) == Set((0..<4).map { "bytes=\($0 * quarter)-\(($0 + 1) * quarter - 1)" }), "\(log.map(\.description))")
        #expect(segments.allSatisfy { $0.status == 206 && $0.ifRange != nil && $0.protocolVersion == "HTTP/1.1" }, "\(log.map(\.description))")
    }

    @Test func aStoppedSplitDownloadContinuesEachSegmentAndAddedConnectionsStealHalves() async throws {
        let ca = try #require(NginxServer.environment["COURIER_NGINX_CA"])
        let (name, served) = try Self.serve("slow", size: 8 << 20)
        defer { try? FileManager.default.removeItem(at: served) }
        let folder = try Fixtures.temporaryDirectory("split-continued")
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = folder.appendingPathComponent("file.bin")
        let probe = NginxInterop.probe()
        let url = try NginxInterop.url("slow/\(name)", probe: probe).absoluteString
        let arguments = ["download", "--cacert", ca, url, "-o", output.path, "--min-split-size", "1M"]

        try await Self.interrupt(arguments + ["--split", "2"], output: output)
        let record = try JSONDecoder().decode(SegmentRecord.self, from: Data(contentsOf: URL(fileURLWithPath: output.path + ".courier-segments")))
        #expect(record.plan.segments.count == 2)
        let resumePoints = Set(record.plan.segments.map { $0.start + $0.written })

        let continued = try await ChildProcess.run("courier", arguments + ["--continue", "--split", "4"])
        #expect(continued.status == 0, "\(continued.standardError)")
        #expect(try Data(contentsOf: output) == (try Data(contentsOf: served)), "the continued file is not the served one")
        #expect(continued.standardError.contains("continuing"), "\(continued.standardError)")

        // The first run: the probe and two segments; the second: the probe, the two segments' rests, and two halves
        // taken by the connections that had no segment of their own.
        let log = try await NginxInterop.accessLog(probe: probe, count: 8)
        let second = Array(log.dropFirst(3))
        #expect(second.first?.range == "bytes=0-0", "\(log.map(\.description))")
        let ranges = second.dropFirst()
        #expect(ranges.allSatisfy { $0.status == 206 && $0.ifRange == log[1].ifRange && $0.ifRange != nil }, "\(log.map(\.description))")
        let starts = Set(ranges.compactMap { $0.range.flatMap { Int64($0.dropFirst("bytes=".count).prefix { $0 != "-" }) } })
        #expect(resumePoints.isSubset(of: starts), "the rests of \(resumePoints) were not asked for: \(log.map(\.description))")
        #expect(starts.count == 4, "\(log.map(\.description))")
    }

    @Test func aFileChangedBetweenTheRunsStartsOverInsteadOfSplicing() async throws {
        let ca = try #require(NginxServer.environment["COURIER_NGINX_CA"])
        let (name, served) = try Self.serve("slow", size: 6 << 20)
        defer { try? FileManager.default.removeItem(at: served) }
        let folder = try Fixtures.temporaryDirectory("split-changed")
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = folder.appendingPathComponent("file.bin")
        let url = try NginxInterop.url("slow/\(name)").absoluteString
        let arguments = ["download", "--cacert", ca, url, "-o", output.path, "--min-split-size", "1M", "--split", "3"]

        try await Self.interrupt(arguments, output: output)
        // Another version of the file (another ETag: nginx's is made of the date and the size).
        try NginxInterop.writeServedFile(served, size: 6 << 20, modified: Date(timeIntervalSince1970: 1_700_000_600))

        let continued = try await ChildProcess.run("courier", arguments + ["--continue"])
        #expect(continued.status == 0, "\(continued.standardError)")
        #expect(continued.standardError.contains("changed on the server since the segments were kept"), "\(continued.standardError)")
        #expect(try Data(contentsOf: output) == (try Data(contentsOf: served)), "the file is not the new version")
    }

    @Test func aServerWithoutByteRangesGetsOneConnectionAndSaysWhy() async throws {
        let ca = try #require(NginxServer.environment["COURIER_NGINX_CA"])
        let (name, served) = try Self.serve("no-ranges", size: 3 << 20)
        defer { try? FileManager.default.removeItem(at: served) }
        let folder = try Fixtures.temporaryDirectory("split-no-ranges")
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = folder.appendingPathComponent("file.bin")
        let probe = NginxInterop.probe()
        let url = try NginxInterop.url("no-ranges/\(name)", probe: probe).absoluteString

        let outcome = try await ChildProcess.run("courier", ["download", "--cacert", ca, url, "-o", output.path, "--split", "4", "--min-split-size", "1M"])
        #expect(outcome.status == 0, "\(outcome.standardError)")
        #expect(outcome.standardError.contains("one connection: the server does not serve byte ranges"), "\(outcome.standardError)")
        #expect(try Data(contentsOf: output) == (try Data(contentsOf: served)))
        // The probe, then the whole file once.
        let log = try await NginxInterop.settledAccessLog(probe: probe, count: 2)
        #expect(log.map(\.status) == [200, 200] && log.last?.range == nil, "\(log.map(\.description))")
    }
}

/// `--split` against the in-process test server, for what nginx cannot do: a server that answers some segments from
/// another version of the file.
@Suite("courier download --split (test server)", .timeLimit(.minutes(2)))
struct CLISplitDownloadTestServerTests {
    @Test func segmentsOfAnotherVersionAreNeverSplicedIn() async throws {
        let folder = try Fixtures.temporaryDirectory("split-hostile")
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = folder.appendingPathComponent("file.bin")
        // Ranges from 1 MiB on come from another version (another ETag, so If-Range gets a 200 of it).
        let url = try await Fixtures.url("/download/3145728?seed=23&changed_from=1048576&digest=repr").absoluteString

        let outcome = try await ChildProcess.run("courier", ["download", url, "-o", output.path, "--split", "3", "--min-split-size", "1M"])
        #expect(outcome.status == 0, "\(outcome.standardError)")
        #expect(outcome.standardError.contains("changed on the server during the download"), "\(outcome.standardError)")
        #expect(outcome.standardError.contains("one connection: the file changed on the server again"), "\(outcome.standardError)")
        #expect(try sha256Hex(ofFile: output) == TestPayload.bytes(count: 3_145_728, seed: 23).sha256Hex, "a spliced file")
        #expect(outcome.standardOutput.contains("Repr-Digest sha-256"), "\(outcome.standardOutput)")
    }

    @Test func aCompleteSplitFileIsVerifiedAgainstReprDigestOnly() async throws {
        let folder = try Fixtures.temporaryDirectory("split-digest")
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = folder.appendingPathComponent("file.bin")
        // Content-MD5 describes each response's own bytes (the probe's one byte): it must not fail the whole file.
        let url = try await Fixtures.url("/download/2097152?seed=24&digest=both").absoluteString

        let outcome = try await ChildProcess.run("courier", ["download", url, "-o", output.path, "--split", "2", "--min-split-size", "1M"])
        #expect(outcome.status == 0, "\(outcome.standardError)")
        #expect(outcome.standardError.contains("over up to 2 connections (2 segments)"), "\(outcome.standardError)")
        #expect(outcome.standardOutput.contains("verified size 2097152, Repr-Digest sha-256"), "\(outcome.standardOutput)")
        #expect(try sha256Hex(ofFile: output) == TestPayload.bytes(count: 2_097_152, seed: 24).sha256Hex)
    }
}
