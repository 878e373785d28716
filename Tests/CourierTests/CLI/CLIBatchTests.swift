import CourierTestServer
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `courier batch` run as a child process against the in-process test server: several downloads
/// two at a time with every file checked, a batch with failures, and a malformed list.
@Suite("courier batch", .timeLimit(.minutes(3)))
struct CLIBatchTests {
    static func directory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("courier-cli-batch-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    static func url(_ path: String) async throws -> String {
        try await Fixtures.url(path).absoluteString
    }

    @Test func severalDownloadsTwoAtATimeAllMatch() async throws {
        let folder = try Self.directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        // Two slow downloads (1 s and 2 s) among fast ones. Two at a time, the third line starts
        // as soon as the second ends, and the fourth waits for the first to end (the third takes a
        // second longer): so the results come in the order 2, 1 then 4 (one at a time would finish
        // 1 first; three at a time would finish 4 before 1). The fourth takes 0.3 s: an operation's
        // slot is free before its completion block has run (AFNetworking's order), and a fourth
        // answered in a millisecond could print first on a busy machine, as it did once in CI.
        let list = """
        # five downloads; three name their output
        \(try await Self.url("/download/300000?seed=23&rate=300000"))\tnested/slow.bin
        \(try await Self.url("/bytes/50000?seed=21"))

        \(try await Self.url("/download/240000?seed=24&rate=120000"))\tslow2.bin
        \(try await Self.url("/download/30000?seed=25&rate=100000"))
        \(try await Self.url("/bytes/70000?seed=22"))\tnamed.bin
        """
        let listFile = folder.appendingPathComponent("list.txt")
        try list.write(to: listFile, atomically: true, encoding: .utf8)
        let out = folder.appendingPathComponent("out")
        let outcome = try await ChildProcess.run("courier", ["batch", listFile.path, "--concurrency", "2", "--output-dir", out.path])
        #expect(outcome.status == 0, "\(outcome.standardError)\n\(outcome.standardOutput)")

        let expected: [(String, Data)] = [
            ("nested/slow.bin", TestPayload.bytes(count: 300_000, seed: 23)),
            ("50000", TestPayload.bytes(count: 50_000, seed: 21)),
            ("slow2.bin", TestPayload.bytes(count: 240_000, seed: 24)),
            ("30000", TestPayload.bytes(count: 30_000, seed: 25)),
            ("named.bin", TestPayload.bytes(count: 70_000, seed: 22)),
        ]
        let stdout = outcome.standardOutput
        let resultLines = stdout.split(separator: "\n").filter { $0.hasPrefix("ok    200  ") }
        #expect(resultLines.count == 5, "\(stdout)")
        func position(_ name: String) -> Int? {
            resultLines.firstIndex { $0.hasSuffix("-> \(out.appendingPathComponent(name).path)") }
        }
        for (name, data) in expected {
            #expect(try sha256Hex(ofFile: out.appendingPathComponent(name)) == data.sha256Hex, "\(name)")
            #expect(position(name) != nil, "no result line for \(name)")
        }
        let first = try #require(position("nested/slow.bin")), second = try #require(position("50000")), fourth = try #require(position("30000"))
        #expect(second < first && first < fourth, "finishing order shows more or fewer than two at a time:\n\(stdout)")

        #expect(stdout.contains("URL") && stdout.contains("STATUS") && stdout.contains("BYTES") && stdout.contains("TIME") && stdout.contains("OUTPUT"))
        #expect(stdout.contains("5 of 5 downloads succeeded"), "\(stdout)")
        let row = try #require(stdout.split(separator: "\n").first { $0.contains("/bytes/70000") && $0.contains("named.bin") && !$0.hasPrefix("ok") })
        #expect(row.contains(" 200 ") && row.contains(" 70000 "), "\(row)")
        // The aggregate progress line, on standard error.
        #expect(outcome.standardError.contains("5/5 files"), "\(outcome.standardError)")
    }

    /// `--no-follow` delivers a redirect as the entry's answer: that entry fails, the others are saved.
    @Test func noFollowMakesARedirectedEntryFail() async throws {
        let folder = try Self.directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let list = """
        \(try await Self.url("/bytes/20000?seed=42"))\tdirect.bin
        \(try await Self.url("/redirect/1"))\tredirected.bin
        """
        let listFile = folder.appendingPathComponent("list.txt")
        try list.write(to: listFile, atomically: true, encoding: .utf8)
        let stopped = try await ChildProcess.run("courier", ["batch", listFile.path, "--no-follow", "--output-dir", folder.path])
        #expect(stopped.status == 6, "\(stopped.standardError)\n\(stopped.standardOutput)")
        #expect(stopped.standardOutput.contains("FAIL  302  "), "\(stopped.standardOutput)")
        #expect(try sha256Hex(ofFile: folder.appendingPathComponent("direct.bin")) == TestPayload.bytes(count: 20_000, seed: 42).sha256Hex)
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("redirected.bin").path))

        let followed = try await ChildProcess.run("courier", ["batch", listFile.path, "--output-dir", folder.path])
        #expect(followed.status == 0, "\(followed.standardError)\n\(followed.standardOutput)")
        #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("redirected.bin").path))
    }

    @Test func aFailedDownloadMakesTheBatchFailAndShowsInTheSummary() async throws {
        let folder = try Self.directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let list = """
        \(try await Self.url("/bytes/20000?seed=31"))\tgood.bin
        \(try await Self.url("/status/404"))\tmissing.bin
        http://127.0.0.1:1/refused\trefused.bin
        \(try await Self.url("/download/30000?seed=32&digest=repr&wrong_digest=1"))\ttampered.bin
        """
        let listFile = folder.appendingPathComponent("list.txt")
        try list.write(to: listFile, atomically: true, encoding: .utf8)
        let outcome = try await ChildProcess.run("courier", ["batch", listFile.path, "--concurrency", "2", "--output-dir", folder.path])
        #expect(outcome.status == 6, "\(outcome.standardError)\n\(outcome.standardOutput)")
        #expect(outcome.standardError.contains("3 of 4 downloads failed"), "\(outcome.standardError)")
        let stdout = outcome.standardOutput
        #expect(stdout.contains("1 of 4 downloads succeeded, 3 failed"), "\(stdout)")
        #expect(stdout.contains("FAIL  200  \(try await Self.url("/download/30000?seed=32&digest=repr&wrong_digest=1")): failed verification: Repr-Digest sha-256 is "), "\(stdout)")
        // Kept for inspection, never under the final name.
        let tampered = folder.appendingPathComponent("tampered.bin.part")
        #expect(try sha256Hex(ofFile: tampered) == TestPayload.bytes(count: 30_000, seed: 32).sha256Hex, "kept for inspection")
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("tampered.bin").path))
        let tamperedRow = try #require(stdout.split(separator: "\n").first { $0.contains("wrong_digest") && !$0.hasPrefix("FAIL") })
        #expect(tamperedRow.contains(" 200 ") && tamperedRow.contains(" 30000 ") && tamperedRow.hasSuffix(tampered.path), "\(tamperedRow)")
        #expect(stdout.contains("FAIL  404  "), "\(stdout)")
        #expect(stdout.contains("FAIL  ---  http://127.0.0.1:1/refused: "), "\(stdout)")
        let rows = stdout.split(separator: "\n")
        let missing = try #require(rows.first { $0.contains("/status/404") && !$0.hasPrefix("FAIL") })
        #expect(missing.contains(" 404 ") && missing.hasSuffix("-"), "\(missing)")
        let refused = try #require(rows.first { $0.hasPrefix("http://127.0.0.1:1/refused ") })
        #expect(refused.contains(" error ") && refused.hasSuffix("-"), "\(refused)")
        #expect(try sha256Hex(ofFile: folder.appendingPathComponent("good.bin")) == TestPayload.bytes(count: 20_000, seed: 31).sha256Hex)
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("missing.bin").path))
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("refused.bin").path))
    }

    @Test func ctrlCStopsTheRestAndARunAgainContinuesThePartialFile() async throws {
        let folder = try Self.directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        // Two downloads of about 5 s each, one at a time.
        let first = "/download/500000?seed=33&rate=100000&digest=repr"
        let list = """
        \(try await Self.url(first))\tfirst.bin
        \(try await Self.url("/download/500000?seed=34&rate=100000"))\tsecond.bin
        """
        let listFile = folder.appendingPathComponent("list.txt")
        try list.write(to: listFile, atomically: true, encoding: .utf8)
        let child = try ChildProcess("courier", ["batch", listFile.path, "--concurrency", "1", "--output-dir", folder.path])
        try await child.waitFor("0/2 files  ")
        #expect(await fileGrows(folder.appendingPathComponent("first.bin.part"), beyond: 0), "bytes on disk before the signal")
        child.send(SIGINT)
        let outcome = try await child.finish(timeout: .seconds(20))
        #expect(!outcome.terminatedBySignal)
        #expect(outcome.status == 130, "\(outcome.standardError)")
        #expect(outcome.standardError.contains("stopped; 0 of 2 downloads had finished"), "\(outcome.standardError)")
        #expect(outcome.standardOutput.contains("0 of 2 downloads succeeded, 2 failed"), "\(outcome.standardOutput)")
        #expect(outcome.standardOutput.contains("\(first): stopped; "), "\(outcome.standardOutput)")
        #expect(outcome.standardOutput.contains(" bytes kept, run the batch again to continue"), "\(outcome.standardOutput)")
        // The running download keeps its bytes and its archive (owner-only: it is the user's data); the queued one
        // never started.
        let firstFile = folder.appendingPathComponent("first.bin")
        let firstPartial = folder.appendingPathComponent("first.bin.part")
        let archive = folder.appendingPathComponent("first.bin.courier-operation")
        #expect(!FileManager.default.fileExists(atPath: firstFile.path), "a stopped download took its final name")
        let kept = try #require(try FileManager.default.attributesOfItem(atPath: firstPartial.path)[.size] as? Int)
        #expect(kept > 0 && kept < 500_000)
        let mode = try #require(try FileManager.default.attributesOfItem(atPath: archive.path)[.posixPermissions] as? Int)
        #expect(mode == 0o600)
        #expect(!(try String(contentsOf: archive, encoding: .utf8)).contains("Authorization"))
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("second.bin").path))

        let server = try await Fixtures.plainServer.value
        let before = server.requestLog.count
        let again = try await ChildProcess.run("courier", ["batch", listFile.path, "--concurrency", "2", "--output-dir", folder.path])
        #expect(again.status == 0, "\(again.standardError)")
        #expect(again.standardError.contains("continuing \(firstFile.path) after its \(kept) bytes"), "\(again.standardError)")
        #expect(try sha256Hex(ofFile: firstFile) == TestPayload.bytes(count: 500_000, seed: 33).sha256Hex)
        #expect(try sha256Hex(ofFile: folder.appendingPathComponent("second.bin")) == TestPayload.bytes(count: 500_000, seed: 34).sha256Hex)
        let ranged = server.requestLog.requests.dropFirst(before).filter { $0.target.hasPrefix("/download/500000?seed=33&") && $0.header("range") != nil }
        #expect(ranged.map { $0.header("range") } == ["bytes=\(kept)-"], "\(ranged)")
        #expect(ranged.first?.header("if-range") == "\"download-33-500000\"")
        #expect(!FileManager.default.fileExists(atPath: archive.path))
    }

    /// A file the batch did not make is never overwritten: the download is saved beside it. A second run skips what
    /// the first finished and verified, without a request; a finished file changed since is downloaded again (beside
    /// it, not over it); `--force` replaces.
    @Test func anExistingFileIsKeptAndARunAgainSkipsOnlyWhatItFinished() async throws {
        let folder = try Self.directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let mine = folder.appendingPathComponent("data.bin")
        try Data("mine".utf8).write(to: mine)
        let path = "/bytes/40000?seed=41"
        let payload = TestPayload.bytes(count: 40_000, seed: 41)
        let listFile = folder.appendingPathComponent("list.txt")
        try "\(try await Self.url(path))\tdata.bin\n".write(to: listFile, atomically: true, encoding: .utf8)
        func batch(_ extra: [String] = [], list: URL = listFile) async throws -> ChildProcess.Outcome {
            try await ChildProcess.run("courier", ["batch", list.path, "--output-dir", folder.path] + extra)
        }

        let first = try await batch()
        #expect(first.status == 0, "\(first.standardError)\n\(first.standardOutput)")
        #expect(try Data(contentsOf: mine) == Data("mine".utf8), "the user's file was overwritten")
        let beside = folder.appendingPathComponent("data-1.bin")
        #expect(try sha256Hex(ofFile: beside) == payload.sha256Hex)
        #expect(first.standardOutput.contains("-> \(beside.path) (data.bin exists and was kept)"), "\(first.standardOutput)")

        let server = try await Fixtures.plainServer.value
        let before = server.requestLog.count
        let again = try await batch()
        #expect(again.status == 0, "\(again.standardError)")
        #expect(again.standardOutput.contains("-> \(beside.path) (finished by an earlier run)"), "\(again.standardOutput)")
        #expect(server.requestLog.requests.dropFirst(before).filter { $0.target == path }.isEmpty, "a finished file was fetched again")
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("data-2.bin").path))

        try Data("edited".utf8).write(to: beside)
        let edited = try await batch()
        #expect(edited.status == 0, "\(edited.standardError)")
        #expect(try Data(contentsOf: beside) == Data("edited".utf8), "a file changed since it was verified was overwritten")
        #expect(try sha256Hex(ofFile: folder.appendingPathComponent("data-2.bin")) == payload.sha256Hex)

        let other = folder.appendingPathComponent("other.bin")
        try Data("mine too".utf8).write(to: other)
        let forceList = folder.appendingPathComponent("force.txt")
        try "\(try await Self.url("/bytes/30000?seed=42"))\tother.bin\n".write(to: forceList, atomically: true, encoding: .utf8)
        let forced = try await batch(["--force"], list: forceList)
        #expect(forced.status == 0, "\(forced.standardError)")
        #expect(try sha256Hex(ofFile: other) == TestPayload.bytes(count: 30_000, seed: 42).sha256Hex)
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("other-1.bin").path))
    }

    @Test func aDownloadCutOffMidwayIsContinuedByTheNextRun() async throws {
        let folder = try Self.directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        // The server closes the connection after 150 000 of 350 000 bytes (only for responses starting before that).
        let listFile = folder.appendingPathComponent("list.txt")
        try "\(try await Self.url("/download/350000?seed=35&abort_after=150000&digest=repr"))\tcut.bin\n".write(to: listFile, atomically: true, encoding: .utf8)
        let broken = try await ChildProcess.run("courier", ["batch", listFile.path, "--output-dir", folder.path])
        #expect(broken.status == 6, "\(broken.standardError)")
        #expect(broken.standardOutput.contains("150000 bytes kept, run the batch again to continue"), "\(broken.standardOutput)")
        let again = try await ChildProcess.run("courier", ["batch", listFile.path, "--output-dir", folder.path])
        #expect(again.status == 0, "\(again.standardOutput) \(again.standardError)")
        #expect(try sha256Hex(ofFile: folder.appendingPathComponent("cut.bin")) == TestPayload.bytes(count: 350_000, seed: 35).sha256Hex)
    }

    /// The archive beside a partial download is a file anyone could have edited: one with an impossible value is
    /// refused, said so, and the download starts again and arrives whole.
    @Test func aTamperedArchiveIsRefusedAndTheDownloadStartsAgain() async throws {
        let folder = try Self.directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let listFile = folder.appendingPathComponent("list.txt")
        try "\(try await Self.url("/download/300000?seed=36&rate=150000&digest=repr"))\ttampered.bin\n".write(to: listFile, atomically: true, encoding: .utf8)
        let child = try ChildProcess("courier", ["batch", listFile.path, "--output-dir", folder.path])
        try await child.waitFor("0/1 files  ")
        #expect(await fileGrows(folder.appendingPathComponent("tampered.bin.part"), beyond: 0), "bytes on disk before the signal")
        child.send(SIGINT)
        let stopped = try await child.finish(timeout: .seconds(20))
        #expect(stopped.status == 130, "\(stopped.standardError)")
        let archive = folder.appendingPathComponent("tampered.bin.courier-operation")
        let original = try String(contentsOf: archive, encoding: .utf8)
        let tampered = original.replacingOccurrences(of: #""totalBytesRead":\d+"#, with: #""totalBytesRead":-5"#, options: .regularExpression)
        try #require(tampered != original)
        try tampered.write(to: archive, atomically: true, encoding: .utf8)

        let again = try await ChildProcess.run("courier", ["batch", listFile.path, "--output-dir", folder.path])
        #expect(again.status == 0, "\(again.standardOutput) \(again.standardError)")
        #expect(again.standardError.contains("cannot continue \(folder.path)/tampered.bin"), "\(again.standardError)")
        #expect(again.standardError.contains("totalBytesRead is invalid"), "\(again.standardError)")
        #expect(try sha256Hex(ofFile: folder.appendingPathComponent("tampered.bin")) == TestPayload.bytes(count: 300_000, seed: 36).sha256Hex)
    }

    @Test func aMalformedLineIsAUsageErrorNamingTheLine() async throws {
        let folder = try Self.directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let listFile = folder.appendingPathComponent("list.txt")
        try "# fine\n\(try await Self.url("/bytes/10"))\nnot a url\n".write(to: listFile, atomically: true, encoding: .utf8)
        let outcome = try await ChildProcess.run("courier", ["batch", listFile.path])
        #expect(outcome.status == 2)
        #expect(outcome.standardError.contains("line 3: not an http or https URL: not a url"), "\(outcome.standardError)")
        #expect(outcome.standardOutput.isEmpty)
    }
}
