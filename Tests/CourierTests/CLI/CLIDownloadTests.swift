import CourierTestServer
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `courier download` run as a child process against the in-process test server's `/download/:n`
/// (seeded bytes, ETag, ranges, optional Repr-Digest/Content-MD5, throttling): checksums, plain
/// progress lines, SIGINT/SIGTERM leaving resume data, `--continue` with Range/If-Range or a clean
/// restart, digest mismatches and HTTP errors.
@Suite("courier download", .timeLimit(.minutes(3)))
struct CLIDownloadTests {
    /// A fresh directory for one test's files.
    static func directory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("courier-cli-download-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    static func url(_ path: String) async throws -> String {
        try await Fixtures.url(path).absoluteString
    }

    static func exists(_ url: URL) -> Bool { FileManager.default.fileExists(atPath: url.path) }

    static func size(_ url: URL) throws -> Int {
        try #require(try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int)
    }

    @Test func aDownloadMatchesTheServersPayloadAndItsDigests() async throws {
        let folder = try Self.directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("blob.bin")
        let outcome = try await ChildProcess.run("courier", ["download", try await Self.url("/download/1048576?seed=7&digest=both"), "-o", file.path])
        #expect(outcome.status == 0, "\(outcome.standardError)")
        #expect(try sha256Hex(ofFile: file) == TestPayload.bytes(count: 1_048_576, seed: 7).sha256Hex)
        #expect(outcome.standardOutput.contains("saved \(file.path) (1048576 bytes; verified size 1048576, Repr-Digest sha-256, Content-MD5 md5)"), "\(outcome.standardOutput)")
        #expect(!Self.exists(folder.appendingPathComponent("blob.bin.part")))
        #expect(!Self.exists(folder.appendingPathComponent("blob.bin.courier-resume")))
    }

    /// `--follow` (the default), `--no-follow` and `--max-redirects`, as the request commands take them.
    @Test func redirectsAreFollowedUnlessToldOtherwise() async throws {
        let folder = try Self.directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let target = "/download/20000?seed=41".addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        let redirecting = try await Self.url("/redirect-to?url=\(target)&status_code=302")
        let followed = folder.appendingPathComponent("followed.bin")
        let outcome = try await ChildProcess.run("courier", ["download", "-v", redirecting, "-o", followed.path])
        #expect(outcome.status == 0, "\(outcome.standardError)")
        // -v shows both hops as the request commands do.
        #expect(outcome.standardError.contains("> GET /redirect-to?"), "\(outcome.standardError)")
        #expect(outcome.standardError.contains("< HTTP/1.1 302 "), "\(outcome.standardError)")
        #expect(outcome.standardError.contains("* redirect 1: 302 to http://127.0.0.1:"), "\(outcome.standardError)")
        #expect(outcome.standardError.contains("> GET /download/20000?seed=41 HTTP/1.1\n"), "\(outcome.standardError)")
        #expect(outcome.standardError.contains("* total "), "\(outcome.standardError)")
        #expect(try sha256Hex(ofFile: followed) == TestPayload.bytes(count: 20_000, seed: 41).sha256Hex)

        let stopped = folder.appendingPathComponent("stopped.bin")
        let refused = try await ChildProcess.run("courier", ["download", "--no-follow", redirecting, "-o", stopped.path])
        #expect(refused.status != 0)
        #expect(refused.standardError.contains("302"), "\(refused.standardError)")
        #expect(!Self.exists(stopped), "a redirect's body is not the file")

        let chain = try await ChildProcess.run("courier", ["download", "--max-redirects", "1", try await Self.url("/redirect/3"), "-o", stopped.path])
        #expect(chain.status != 0)
        #expect(chain.standardError.lowercased().contains("redirect"), "\(chain.standardError)")
        #expect(!Self.exists(stopped))
    }

    /// `--output-dir` (created when missing) holds the URL-named file and a relative `-o`; an absolute `-o` ignores it.
    @Test func outputDirHoldsTheFile() async throws {
        let folder = try Self.directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let nested = folder.appendingPathComponent("new/sub")
        let named = try await ChildProcess.run("courier", ["download", "--output-dir", nested.path, try await Self.url("/download/5000?seed=43")])
        #expect(named.status == 0, "\(named.standardError)")
        let saved = try FileManager.default.contentsOfDirectory(atPath: nested.path).filter { !$0.hasPrefix(".") }
        #expect(saved.count == 1, "\(saved)")
        let file = nested.appendingPathComponent(try #require(saved.first))
        #expect(try sha256Hex(ofFile: file) == TestPayload.bytes(count: 5000, seed: 43).sha256Hex)

        let relative = try await ChildProcess.run("courier", ["download", "--output-dir", nested.path, "-o", "chosen.bin", try await Self.url("/download/5000?seed=44")])
        #expect(relative.status == 0, "\(relative.standardError)")
        #expect(try sha256Hex(ofFile: nested.appendingPathComponent("chosen.bin")) == TestPayload.bytes(count: 5000, seed: 44).sha256Hex)

        let absolute = folder.appendingPathComponent("absolute.bin")
        let outside = try await ChildProcess.run("courier", ["download", "--output-dir", nested.path, "-o", absolute.path, try await Self.url("/download/5000?seed=45")])
        #expect(outside.status == 0, "\(outside.standardError)")
        #expect(Self.exists(absolute))
        #expect(!Self.exists(nested.appendingPathComponent("absolute.bin")))
    }

    @Test func aLargeDownloadStreamsToDiskWithSmallMemory() async throws {
        let folder = try Self.directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("large.bin")
        let size = 256 << 20
        let child = try ChildProcess("courier", ["download", try await Self.url("/download/\(size)?seed=17"), "-o", file.path])
        let outcome = try await child.finish()
        let peakKiB = outcome.peakResidentBytes / 1024
        #expect(outcome.status == 0, "\(outcome.standardError)")
        #expect(try Self.size(file) == size)
        #expect(peakKiB > 0, "the child's memory was never read")
        #expect(peakKiB < 128 * 1024, "courier peaked at \(peakKiB / 1024) MiB for a \(size >> 20) MiB download")
    }

    @Test func progressWithoutATerminalIsPlainPeriodicLines() async throws {
        let folder = try Self.directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("slow.bin")
        // 240 000 bytes at 120 000 B/s: about two seconds, so several half-second lines.
        let outcome = try await ChildProcess.run("courier", ["download", try await Self.url("/download/240000?seed=2&rate=120000"), "-o", file.path])
        #expect(outcome.status == 0, "\(outcome.standardError)")
        let lines = outcome.standardError.split(separator: "\n")
        let progress = lines.filter { $0.contains(" / 234 KiB  ") && $0.contains("%") && $0.contains("ETA ") }
        #expect(progress.count >= 3, "\(outcome.standardError)")
        #expect(lines.last?.hasPrefix("234 KiB  100%  ") == true, "\(outcome.standardError)")
        #expect(!outcome.standardError.contains("\r"), "no redraws when stdout is not a terminal")
        #expect(!outcome.standardOutput.contains("%"), "progress stays off standard output")
    }

    /// Starts a throttled download, stops it with `signal` once progress shows, and checks what it left.
    static func interrupt(_ path: String, with signal: Int32, file: URL, options: [String] = []) async throws -> ChildProcess.Outcome {
        let child = try ChildProcess("courier", ["download", try await url(path), "-o", file.path] + options)
        try await child.waitFor("downloading \(try await url(path)) into \(file.path)")
        try await child.waitFor("ETA ")
        #expect(await fileGrows(URL(fileURLWithPath: file.path + ".part"), beyond: 0), "bytes on disk before the signal")
        child.send(signal)
        let outcome = try await child.finish(timeout: .seconds(20))
        #expect(!outcome.terminatedBySignal, "courier died of the signal instead of stopping cleanly")
        #expect(outcome.status == 128 + signal, "\(outcome.standardError)")
        #expect(outcome.standardError.contains("--continue"), "\(outcome.standardError)")
        #expect(!exists(file))
        let partial = URL(fileURLWithPath: file.path + ".part")
        let kept = try size(partial)
        #expect(kept > 0)
        #expect(exists(URL(fileURLWithPath: file.path + ".courier-resume")))
        #expect(outcome.standardError.contains("stopped after \(kept) bytes"), "\(outcome.standardError)")
        return outcome
    }

    @Test func ctrlCLeavesResumeDataAndContinueCompletesWithRange() async throws {
        let folder = try Self.directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("resumed.bin")
        let path = "/download/600000?seed=11&rate=200000&digest=both"
        _ = try await Self.interrupt(path, with: SIGINT, file: file)
        let kept = try Self.size(URL(fileURLWithPath: file.path + ".part"))
        #expect(kept < 600_000)

        let server = try await Fixtures.plainServer.value
        let before = server.requestLog.count
        let resumed = try await ChildProcess.run("courier", ["download", try await Self.url(path), "-o", file.path, "--continue"])
        #expect(resumed.status == 0, "\(resumed.standardError)")
        #expect(resumed.standardError.contains("continuing \(try await Self.url(path)) after \(kept) bytes into \(file.path)"), "\(resumed.standardError)")
        #expect(try sha256Hex(ofFile: file) == TestPayload.bytes(count: 600_000, seed: 11).sha256Hex)
        // Content-MD5 of a 206 covers the resumed part only; Repr-Digest the whole file.
        #expect(resumed.standardOutput.contains("verified size 600000, Repr-Digest sha-256, Content-MD5 md5"), "\(resumed.standardOutput)")
        let requests = server.requestLog.requests.dropFirst(before).filter { $0.path == "/download/600000" && $0.target.contains("seed=11&") }
        let ranged = try #require(requests.first { $0.header("range") != nil }, "no Range request in \(requests)")
        #expect(ranged.header("range") == "bytes=\(kept)-")
        #expect(ranged.header("if-range") == "\"download-11-600000\"")
        #expect(!Self.exists(URL(fileURLWithPath: file.path + ".part")))
        #expect(!Self.exists(URL(fileURLWithPath: file.path + ".courier-resume")))
    }

    @Test func resumeDataHoldsNoCredentialAndContinueSendsTheNewCommandsFields() async throws {
        let folder = try Self.directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("private.bin")
        let path = "/download/500000?seed=19&rate=200000"
        _ = try await Self.interrupt(path, with: SIGINT, file: file, options: ["--bearer", "secret-token-1", "-H", "X-Run: first"])
        let stored = URL(fileURLWithPath: file.path + ".courier-resume")
        let text = try String(contentsOf: stored, encoding: .utf8)
        #expect(!text.contains("secret-token-1") && !text.contains("X-Run"), "\(text)")
        let mode = try #require(try FileManager.default.attributesOfItem(atPath: stored.path)[.posixPermissions] as? Int)
        #expect(mode == 0o600)

        let server = try await Fixtures.plainServer.value
        let before = server.requestLog.count
        let resumed = try await ChildProcess.run("courier", [
            "download", try await Self.url(path), "-o", file.path, "--continue", "--bearer", "secret-token-2", "-H", "X-Run: second",
        ])
        #expect(resumed.status == 0, "\(resumed.standardError)")
        // Other tests share the server: this one's requests are the ones with its seed.
        let ranged = try #require(server.requestLog.requests.dropFirst(before).first { $0.header("range") != nil && $0.target.contains("seed=19&") })
        #expect(ranged.header("authorization") == "Bearer secret-token-2")
        #expect(ranged.header("x-run") == "second")
        #expect(try sha256Hex(ofFile: file) == TestPayload.bytes(count: 500_000, seed: 19).sha256Hex)
    }

    @Test func stoppingBeforeAnyDataLeavesNothingToResume() async throws {
        let folder = try Self.directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("early.bin")
        // The head comes at once, the body only after 10 s.
        let child = try ChildProcess("courier", ["download", try await Self.url("/slow-body/1000?delay=10"), "-o", file.path])
        try await child.waitFor("downloading ")
        child.send(SIGINT)
        let outcome = try await child.finish(timeout: .seconds(20))
        #expect(!outcome.terminatedBySignal)
        #expect(outcome.status == 130, "\(outcome.standardError)")
        #expect(outcome.standardError.contains("stopped before any data arrived; nothing to resume"), "\(outcome.standardError)")
        let left = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        #expect(left.isEmpty, "left behind: \(left)")
    }

    @Test func sigtermAlsoLeavesResumeData() async throws {
        let folder = try Self.directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("terminated.bin")
        let outcome = try await Self.interrupt("/download/600000?seed=12&rate=200000", with: SIGTERM, file: file)
        // The suggested command is quoted for the shell (the URL has '?' and '&').
        #expect(outcome.standardError.contains("resume with: courier download '\(try await Self.url("/download/600000?seed=12&rate=200000"))' -o \(file.path) --continue"), "\(outcome.standardError)")
    }

    @Test func continueRestartsCleanlyWhenTheServerIgnoresRanges() async throws {
        let folder = try Self.directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("restarted.bin")
        let path = "/download/400000?seed=13&rate=200000&ignore_range=1&digest=repr"
        _ = try await Self.interrupt(path, with: SIGINT, file: file)
        let resumed = try await ChildProcess.run("courier", ["download", try await Self.url(path), "-o", file.path, "--continue"])
        #expect(resumed.status == 0, "\(resumed.standardError)")
        #expect(resumed.standardError.contains("cannot resume this download; starting again"), "\(resumed.standardError)")
        #expect(try sha256Hex(ofFile: file) == TestPayload.bytes(count: 400_000, seed: 13).sha256Hex)
        #expect(resumed.standardOutput.contains("verified size 400000, Repr-Digest sha-256"), "\(resumed.standardOutput)")
    }

    /// Rewrites the stored resume data's `resumption` fields, as if the file had changed on the
    /// server (another ETag) or the partial file were already whole (offset = total).
    static func editResumeData(of file: URL, _ edit: (inout [String: Any]) -> Void) throws {
        let url = URL(fileURLWithPath: file.path + ".courier-resume")
        var object = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        var resumption = try #require(object["resumption"] as? [String: Any])
        edit(&resumption)
        object["resumption"] = resumption
        try JSONSerialization.data(withJSONObject: object).write(to: url)
    }

    @Test func continueRestartsCleanlyWhenTheETagChanged() async throws {
        let folder = try Self.directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("changed.bin")
        let path = "/download/410000?seed=14&rate=200000&digest=repr"
        _ = try await Self.interrupt(path, with: SIGINT, file: file)
        // The kept bytes belong to an older version: other bytes and another validator.
        let partial = URL(fileURLWithPath: file.path + ".part")
        let kept = try Self.size(partial)
        try Data(repeating: 0x2A, count: kept).write(to: partial)
        try Self.editResumeData(of: file) { $0["entityTag"] = "\"an-older-version\"" }

        let server = try await Fixtures.plainServer.value
        let before = server.requestLog.count
        let resumed = try await ChildProcess.run("courier", ["download", try await Self.url(path), "-o", file.path, "--continue"])
        #expect(resumed.status == 0, "\(resumed.standardError)")
        #expect(resumed.standardError.contains("starting again from the beginning"), "\(resumed.standardError)")
        #expect(try sha256Hex(ofFile: file) == TestPayload.bytes(count: 410_000, seed: 14).sha256Hex)
        let request = try #require(server.requestLog.requests.dropFirst(before).first { $0.path == "/download/410000" })
        #expect(request.header("if-range") == "\"an-older-version\"")
        #expect(request.header("range") == "bytes=\(kept)-")
    }

    @Test func continueOfAnAlreadyCompleteFileFinishesWithoutABody() async throws {
        let folder = try Self.directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("complete.bin")
        let path = "/download/300000?seed=15&rate=150000"
        _ = try await Self.interrupt(path, with: SIGINT, file: file)
        // Every byte arrived after all: the server answers 416 with the total, nothing is sent again.
        try TestPayload.bytes(count: 300_000, seed: 15).write(to: URL(fileURLWithPath: file.path + ".part"))
        try Self.editResumeData(of: file) { $0["offset"] = 300_000 }
        let resumed = try await ChildProcess.run("courier", ["download", try await Self.url(path), "-o", file.path, "--continue"])
        #expect(resumed.status == 0, "\(resumed.standardError)")
        #expect(resumed.standardOutput.contains("(300000 bytes; verified size 300000)"), "\(resumed.standardOutput)")
        #expect(try sha256Hex(ofFile: file) == TestPayload.bytes(count: 300_000, seed: 15).sha256Hex)
    }

    @Test func aLostConnectionKeepsResumeDataAndContinueFinishes() async throws {
        let folder = try Self.directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("dropped.bin")
        // The server closes the connection after 150 000 of 350 000 bytes (only for responses starting before that).
        let path = "/download/350000?seed=16&abort_after=150000&digest=repr"
        let broken = try await ChildProcess.run("courier", ["download", try await Self.url(path), "-o", file.path])
        #expect(broken.status == 4, "\(broken.standardError)")
        #expect(broken.standardError.contains("after 150000 bytes; resume with: courier download "), "\(broken.standardError)")
        #expect(try Self.size(URL(fileURLWithPath: file.path + ".part")) == 150_000)
        #expect(!Self.exists(file))

        let resumed = try await ChildProcess.run("courier", ["download", try await Self.url(path), "-o", file.path, "--continue"])
        #expect(resumed.status == 0, "\(resumed.standardError)")
        #expect(try sha256Hex(ofFile: file) == TestPayload.bytes(count: 350_000, seed: 16).sha256Hex)
        #expect(resumed.standardOutput.contains("verified size 350000, Repr-Digest sha-256"), "\(resumed.standardOutput)")
    }

    @Test func continueOfAFileAnotherProgramLeftAsksForTheRestWithoutAValidator() async throws {
        let folder = try Self.directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("browser.bin")
        let payload = TestPayload.bytes(count: 400_000, seed: 21)
        try payload.prefix(123_456).write(to: file)   // what a browser, curl or wget left: no resume data
        let path = "/download/400000?seed=21&digest=repr"
        let server = try await Fixtures.plainServer.value
        let before = server.requestLog.count
        let resumed = try await ChildProcess.run("courier", ["download", try await Self.url(path), "-o", file.path, "--continue"])
        #expect(resumed.status == 0, "\(resumed.standardError)")
        #expect(resumed.standardError.contains("has no resume data; continuing after its 123456 bytes, which cannot be checked"), "\(resumed.standardError)")
        #expect(!resumed.standardError.contains("kept unchecked"), "Repr-Digest checked the kept bytes too")
        #expect(resumed.standardOutput.contains("verified size 400000, Repr-Digest sha-256"), "\(resumed.standardOutput)")
        #expect(try sha256Hex(ofFile: file) == payload.sha256Hex)
        let request = try #require(server.requestLog.requests.dropFirst(before).first { $0.path == "/download/400000" && $0.target.contains("seed=21&") })
        #expect(request.header("range") == "bytes=123456-")
        #expect(request.header("if-range") == nil, "nothing to validate the kept bytes with")
        #expect(!Self.exists(URL(fileURLWithPath: file.path + ".part")))
        #expect(!Self.exists(URL(fileURLWithPath: file.path + ".courier-resume")))
    }

    @Test func foreignBytesThatAreNotTheStartFailVerificationAndAreKept() async throws {
        let folder = try Self.directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("other.bin")
        try Data(repeating: 0x2A, count: 100_000).write(to: file)
        let outcome = try await ChildProcess.run("courier", ["download", try await Self.url("/download/300000?seed=22&digest=repr"), "-o", file.path, "--continue"])
        #expect(outcome.status == 5, "\(outcome.standardError)")
        #expect(outcome.standardError.contains("failed verification: Repr-Digest sha-256 is "), "\(outcome.standardError)")
        #expect(try Data(contentsOf: file).prefix(100_000) == Data(repeating: 0x2A, count: 100_000), "the file is kept as it was made")

        // Without a digest of the whole file the same bytes cannot be caught: the user is told so.
        let unchecked = folder.appendingPathComponent("unchecked.bin")
        try Data(repeating: 0x2A, count: 100_000).write(to: unchecked)
        let warned = try await ChildProcess.run("courier", ["download", try await Self.url("/download/300000?seed=22"), "-o", unchecked.path, "--continue"])
        #expect(warned.status == 0, "\(warned.standardError)")
        #expect(warned.standardError.contains("the first 100000 bytes were kept unchecked"), "\(warned.standardError)")
        #expect(try Self.size(unchecked) == 300_000)
    }

    @Test func aForeignFileBesideAPartialWithoutResumeDataIsLeftAlone() async throws {
        let folder = try Self.directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("two.bin")
        let partial = URL(fileURLWithPath: file.path + ".part")
        try Data(repeating: 1, count: 1000).write(to: file)
        try Data(repeating: 2, count: 2000).write(to: partial)
        let outcome = try await ChildProcess.run("courier", ["download", try await Self.url("/download/5000?seed=24"), "-o", file.path, "--continue"])
        #expect(outcome.status == 2, "\(outcome.standardError)")
        #expect(outcome.standardError.contains("both \(file.path) and \(partial.path) exist"), "\(outcome.standardError)")
        #expect(try Data(contentsOf: file) == Data(repeating: 1, count: 1000))
        #expect(try Data(contentsOf: partial) == Data(repeating: 2, count: 2000))
    }

    @Test func aTakenOverFileStopsAndContinuesLikeCouriersOwn() async throws {
        let folder = try Self.directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("again.bin")
        let payload = TestPayload.bytes(count: 600_000, seed: 23)
        try payload.prefix(50_000).write(to: file)
        let path = "/download/600000?seed=23&rate=200000&digest=repr"
        let child = try ChildProcess("courier", ["download", try await Self.url(path), "-o", file.path, "--continue"])
        try await child.waitFor("continuing ")
        #expect(await fileGrows(URL(fileURLWithPath: file.path + ".part"), beyond: 50_000), "new bytes on disk before the signal")
        child.send(SIGINT)
        let stopped = try await child.finish(timeout: .seconds(20))
        #expect(stopped.status == 130, "\(stopped.standardError)")
        let kept = try Self.size(URL(fileURLWithPath: file.path + ".part"))
        #expect(kept > 50_000 && kept < 600_000)
        #expect(!Self.exists(file), "the file moved to .part while it is continued")

        let finished = try await ChildProcess.run("courier", ["download", try await Self.url(path), "-o", file.path, "--continue"])
        #expect(finished.status == 0, "\(finished.standardError)")
        #expect(finished.standardError.contains("continuing \(try await Self.url(path)) after \(kept) bytes"), "\(finished.standardError)")
        #expect(try sha256Hex(ofFile: file) == payload.sha256Hex)
    }

    @Test(arguments: [("repr", "Repr-Digest sha-256"), ("md5", "Content-MD5 md5")])
    func aDigestMismatchFailsAndKeepsTheFile(digest: String, named: String) async throws {
        let folder = try Self.directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("tampered.bin")
        let outcome = try await ChildProcess.run("courier", ["download", try await Self.url("/download/50000?seed=3&digest=\(digest)&wrong_digest=1"), "-o", file.path])
        #expect(outcome.status == 5, "\(outcome.standardError)")
        #expect(outcome.standardError.contains("failed verification: \(named) is "), "\(outcome.standardError)")
        #expect(outcome.standardError.contains("kept for inspection"))
        #expect(try sha256Hex(ofFile: file) == TestPayload.bytes(count: 50_000, seed: 3).sha256Hex)
    }

    /// `--checksum`: a matching file is saved and says so; the same command again finds it complete and sends nothing;
    /// a mismatch exits 5 and leaves nothing under the final name; a malformed value is a usage error.
    @Test func aChecksumTheUserGivesIsCheckedAndACompleteFileIsASuccess() async throws {
        let folder = try Self.directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = "/download/60000?seed=61"
        let payload = TestPayload.bytes(count: 60_000, seed: 61)
        let file = folder.appendingPathComponent("checked.bin")
        let arguments = ["download", try await Self.url(path), "-o", file.path, "--checksum", "SHA-256=\(payload.sha256Hex.uppercased())"]
        let first = try await ChildProcess.run("courier", arguments)
        #expect(first.status == 0, "\(first.standardError)")
        #expect(try sha256Hex(ofFile: file) == payload.sha256Hex)
        #expect(first.standardOutput.contains("sha-256 from --checksum"), "\(first.standardOutput)")

        let server = try await Fixtures.plainServer.value
        let before = server.requestLog.count
        let again = try await ChildProcess.run("courier", arguments)
        #expect(again.status == 0, "\(again.standardError)")
        #expect(again.standardOutput.contains("\(file.path) is already complete (verified sha-256 from --checksum)"), "\(again.standardOutput)")
        #expect(server.requestLog.requests.dropFirst(before).filter { $0.target == path }.isEmpty, "a verified file was fetched again")

        let wrong = folder.appendingPathComponent("wrong.bin")
        let other = String(repeating: "ab", count: 64)
        let mismatch = try await ChildProcess.run("courier", ["download", try await Self.url(path), "-o", wrong.path, "--checksum", "sha512=\(other)"])
        #expect(mismatch.status == 5, "\(mismatch.standardError)")
        #expect(!Self.exists(wrong), "a file that failed --checksum kept the final name")
        #expect(try sha256Hex(ofFile: folder.appendingPathComponent("wrong.bin.part")) == payload.sha256Hex)
        #expect(mismatch.standardError.contains("not \(other) as --checksum says; kept as \(wrong.path).part"), "\(mismatch.standardError)")

        for malformed in ["sha256", "md4=00", "sha256=1234", "sha256=\(String(repeating: "zz", count: 32))"] {
            let refused = try await ChildProcess.run("courier", ["download", try await Self.url(path), "-o", wrong.path, "--checksum", malformed])
            #expect(refused.status == 2, "\(malformed): \(refused.standardError)")
            #expect(refused.standardError.contains("--checksum"), "\(refused.standardError)")
        }
    }

    @Test func anHTTPErrorExitsThreeAndSavesNothing() async throws {
        let folder = try Self.directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("missing.bin")
        let outcome = try await ChildProcess.run("courier", ["download", try await Self.url("/status/404"), "-o", file.path])
        #expect(outcome.status == 3, "\(outcome.standardError)")
        #expect(outcome.standardError.contains("HTTP 404"), "\(outcome.standardError)")
        #expect(!Self.exists(file))

        let usage = try await ChildProcess.run("courier", ["download", "ftp://example.com/x"])
        #expect(usage.status == 2)
        #expect(usage.standardError.contains("not an http or https URL"))
        let nowhere = try await ChildProcess.run("courier", ["download", try await Self.url("/bytes/10"), "-o", folder.appendingPathComponent("no/such/dir/x").path])
        #expect(nowhere.status == 2)
        #expect(nowhere.standardError.contains("no/such/dir does not exist"), "\(nowhere.standardError)")
    }
}
