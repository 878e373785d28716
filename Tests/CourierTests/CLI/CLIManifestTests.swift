import Crypto
import Foundation
import Testing
@testable import courier

/// Issue #36, item 3: `courier batch` with a JSON Lines manifest (sizes, digests, mirrors, header fields), a
/// `SHA256SUMS` file, `--report json`, and re-runs that fetch nothing already verified. Against nginx, whose mirrors
/// refuse (404), serve other bytes, or serve a file of another length.
@Suite(
    "courier batch manifests (nginx)",
    .enabled(NginxServer.skipMessage) { await NginxInterop.isRunning() },
    .timeLimit(.minutes(2))
)
struct CLIManifestTests {
    /// A served folder with `good.bin` (the file wanted), `other.bin` (as long, other bytes) and `short.bin` (shorter).
    struct Served {
        let folder: URL
        let name: String
        let good: Data
        var sha256: String { SHA256.hash(data: good).map { String(format: "%02x", $0) }.joined() }

        init() throws {
            name = "manifest-\(UUID().uuidString)"
            folder = try NginxInterop.servedFile(name)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
            let date = Date(timeIntervalSince1970: 1_700_000_000)
            try NginxInterop.writeServedFile(folder.appendingPathComponent("good.bin"), size: 70_000, modified: date)
            try NginxInterop.writeServedFile(folder.appendingPathComponent("other.bin"), size: 70_000, modified: date)
            try NginxInterop.writeServedFile(folder.appendingPathComponent("short.bin"), size: 60_000, modified: date)
            good = try Data(contentsOf: folder.appendingPathComponent("good.bin"))
        }

        func url(_ file: String, probe: String) throws -> String {
            try NginxInterop.url("\(name)/\(file)", probe: probe).absoluteString
        }
    }

    @Test func mirrorsAreTriedInTurnUntilOneServesTheListedFile() async throws {
        let ca = try #require(NginxServer.environment["COURIER_NGINX_CA"])
        let served = try Served()
        defer { try? FileManager.default.removeItem(at: served.folder) }
        let folder = try Fixtures.temporaryDirectory("manifest")
        defer { try? FileManager.default.removeItem(at: folder) }
        let probe = NginxInterop.probe()
        let mirrors = try ["other.bin", "short.bin", "good.bin"].map { try served.url($0, probe: probe) }
        let line: [String: Any] = [
            "url": try served.url("missing.bin", probe: probe), "output": "wanted.bin", "sha256": served.sha256, "size": 70_000,
            "mirrors": mirrors, "headers": ["X-Courier-Test": "manifest"],
        ]
        let manifest = folder.appendingPathComponent("list.jsonl")
        try JSONSerialization.data(withJSONObject: line).write(to: manifest)
        let arguments = ["batch", manifest.path, "--cacert", ca, "--output-dir", folder.appendingPathComponent("out").path]

        let outcome = try await ChildProcess.run("courier", arguments + ["--report", "json"])
        #expect(outcome.status == 0, "\(outcome.standardError)")
        let saved = folder.appendingPathComponent("out/wanted.bin")
        #expect(try Data(contentsOf: saved) == served.good)
        for (mirror, reason) in [("other.bin", "sha-256"), ("short.bin", "size 60000 bytes, but the list says 70000")] {
            #expect(outcome.standardError.contains("\(mirror)?probe=\(probe) failed (failed verification: \(reason)"), "\(outcome.standardError)")
        }
        #expect(outcome.standardError.contains("missing.bin?probe=\(probe) failed (HTTP 404)"), "\(outcome.standardError)")

        let report = try #require(try JSONSerialization.jsonObject(with: Data(outcome.standardOutput.utf8)) as? [String: Any], "\(outcome.standardOutput)")
        let download = try #require((report["downloads"] as? [[String: Any]])?.first)
        #expect(download["attempts"] as? Int == 4)
        #expect(download["sha256"] as? String == served.sha256)
        #expect(download["bytes"] as? Int == 70_000)
        #expect(download["url"] as? String == mirrors.last)
        #expect(download["error"] is NSNull)
        #expect(report["succeeded"] as? Int == 1 && report["failed"] as? Int == 0)
        let log = try await NginxInterop.accessLog(probe: probe, count: 4)
        #expect(log.map(\.status) == [404, 200, 200, 200], "\(log.map(\.description))")

        // Run again: verified, so nothing is sent.
        let again = try await ChildProcess.run("courier", arguments)
        #expect(again.status == 0, "\(again.standardError)")
        #expect(again.standardOutput.contains("finished by an earlier run"), "\(again.standardOutput)")
        _ = try await NginxInterop.settledAccessLog(probe: probe, count: 4)
    }

    @Test func aChecksumsFileVerifiesAndAFileAlreadyThereWithItsDigestIsDone() async throws {
        let ca = try #require(NginxServer.environment["COURIER_NGINX_CA"])
        let served = try Served()
        defer { try? FileManager.default.removeItem(at: served.folder) }
        let folder = try Fixtures.temporaryDirectory("manifest-sums")
        defer { try? FileManager.default.removeItem(at: folder) }
        let out = folder.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        let probe = NginxInterop.probe()
        let list = folder.appendingPathComponent("list.txt")
        try [
            "\(try served.url("good.bin", probe: probe))\thave.bin",
            "\(try served.url("other.bin", probe: probe))\tbad.bin",
            "\(try served.url("good.bin", probe: probe))\tnew.bin",
        ].joined(separator: "\n").write(to: list, atomically: true, encoding: .utf8)
        let sums = folder.appendingPathComponent("SHA256SUMS")
        try ["have.bin", "bad.bin", "new.bin"].map { "\(served.sha256)  \($0)" }.joined(separator: "\n").write(to: sums, atomically: true, encoding: .utf8)
        // Already there, with the listed digest.
        try served.good.write(to: out.appendingPathComponent("have.bin"))

        let outcome = try await ChildProcess.run("courier", ["batch", list.path, "--cacert", ca, "--output-dir", out.path, "--checksums", sums.path])
        #expect(outcome.status == 6, "\(outcome.standardOutput) \(outcome.standardError)")
        #expect(outcome.standardOutput.contains("have.bin (finished by an earlier run)"), "\(outcome.standardOutput)")
        #expect(outcome.standardOutput.contains("failed verification: sha-256"), "\(outcome.standardOutput)")
        #expect(!FileManager.default.fileExists(atPath: out.appendingPathComponent("bad.bin").path), "a file that failed verification took its name")
        #expect(try Data(contentsOf: out.appendingPathComponent("new.bin")) == served.good)
        // have.bin was not asked for.
        let log = try await NginxInterop.settledAccessLog(probe: probe, count: 2)
        #expect(log.allSatisfy { $0.uri.contains("other.bin") || $0.uri.contains("good.bin") }, "\(log.map(\.description))")
    }
}

/// Issue #36, item 4: `batch` takes `-v` and `--max-time` as `download` does.
@Suite(
    "courier batch -v and --max-time (nginx)",
    .enabled(NginxServer.skipMessage) { await NginxInterop.isRunning() },
    .timeLimit(.minutes(2))
)
struct CLIBatchTimeAndTraceTests {
    @Test func maxTimeStopsADownloadKeepingItsBytesAndVerboseShowsItsHops() async throws {
        let ca = try #require(NginxServer.environment["COURIER_NGINX_CA"])
        let (name, served) = try CLISplitDownloadTests.serve("slow", size: 3 << 20)
        defer { try? FileManager.default.removeItem(at: served) }
        let folder = try Fixtures.temporaryDirectory("batch-max-time")
        defer { try? FileManager.default.removeItem(at: folder) }
        let list = folder.appendingPathComponent("list.txt")
        try "\(try NginxInterop.url("slow/\(name)").absoluteString)\tslow.bin\n".write(to: list, atomically: true, encoding: .utf8)
        let arguments = ["batch", list.path, "--cacert", ca, "--output-dir", folder.path]

        let stopped = try await ChildProcess.run("courier", arguments + ["--max-time", "1", "-v"])
        #expect(stopped.status == 6, "\(stopped.standardOutput) \(stopped.standardError)")
        #expect(stopped.standardOutput.contains("took longer than --max-time 1 s;"), "\(stopped.standardOutput)")
        #expect(stopped.standardOutput.contains("bytes kept, run the batch again to continue"), "\(stopped.standardOutput)")
        #expect(stopped.standardError.contains("> GET /slow/\(name) HTTP/2"), "\(stopped.standardError)")
        #expect(stopped.standardError.contains("< HTTP/2 200"), "\(stopped.standardError)")
        let kept = try NginxInterop.size(of: folder.appendingPathComponent("slow.bin.part"))
        #expect(kept > 0 && kept < 3 << 20, "\(kept)")

        let finished = try await ChildProcess.run("courier", arguments)
        #expect(finished.status == 0, "\(finished.standardOutput) \(finished.standardError)")
        #expect(try Data(contentsOf: folder.appendingPathComponent("slow.bin")) == (try Data(contentsOf: served)))
    }
}

/// The pure parts: manifest lines and checksums files, and what they refuse.
@Suite("courier batch manifest and checksums parsing", .timeLimit(.minutes(1)))
struct ManifestParsingTests {
    static let directory = URL(fileURLWithPath: "/downloads")
    static let digest = String(repeating: "ab", count: 32)

    @Test func manifestLinesAndPlainLinesMix() throws {
        let text = """
        # a comment
        {"url": "https://a.example/x.iso", "output": "iso/x.iso", "size": 12, "sha256": "\(Self.digest)", "mirrors": ["https://b.example/x.iso"], "headers": {"Authorization": "Bearer t"}}
        https://a.example/y.bin\ty.bin
        {"url": "https://a.example/z.bin"}
        """
        let batch = try BatchFile(parsing: text, directory: Self.directory)
        #expect(batch.entries.map(\.output.path) == ["/downloads/iso/x.iso", "/downloads/y.bin", "/downloads/z.bin"])
        let first = batch.entries[0]
        #expect(first.size == 12 && first.checksum?.algorithm == .sha256 && first.headers == ["Authorization": "Bearer t"])
        let mirror = try #require(first.nextMirror())
        #expect(mirror.url.absoluteString == "https://b.example/x.iso" && mirror.listedURL == first.url && mirror.nextMirror() == nil)
        #expect(mirror.output == first.output && mirror.checksum == first.checksum)
    }

    @Test func badManifestLinesAreNamed() {
        let cases: [(String, String)] = [
            (#"{"url": "https://a.example/x", "sha256": "abc"}"#, "\"sha256\""),
            (#"{"url": "https://a.example/x", "sha-256": "abc"}"#, "unknown key \"sha-256\""),
            (#"{"url": "https://a.example/x", "sha256": "\#(Self.digest)", "sha512": "\#(Self.digest)"}"#, "not both"),
            (#"{"url": "ftp://a.example/x"}"#, "not an http or https URL"),
            (#"{"url": "https://a.example/x", "mirrors": ["file:///etc/passwd"]}"#, "not an http or https URL"),
            (#"{"url": "https://a.example/x", "size": -1}"#, "negative"),
            (#"{"url": "https://a.example/x", "headers": {"Bad Name": "v"}}"#, "not a header name"),
            (#"{"output": "x"}"#, "\"url\" is missing"),
            (#"{"url": 5}"#, "wrong type"),
            (#"{"url": "https://a.example/x""#, "invalid JSON"),
            (#"{"url": "https://a.example/x", "output": ""}"#, "empty"),
        ]
        for (line, reason) in cases {
            #expect {
                try BatchFile(parsing: "https://a.example/first\n" + line, directory: Self.directory)
            } throws: { error in
                guard let malformed = error as? BatchFile.Malformed else { return false }
                return malformed.line == 2 && malformed.reason.contains(reason)
            }
        }
    }

    @Test func checksumsFilesAreReadAsSha256sumWritesThem() throws {
        let long = String(repeating: "cd", count: 64)
        let sums = try ChecksumsFile(parsing: "\(Self.digest)  a.bin\n\(long) *dir/b.bin\n# note\n\n\(Self.digest)  ./c.bin\n", named: "SUMS")
        #expect(sums.digests["a.bin"]?.algorithm == .sha256)
        #expect(sums.digests["dir/b.bin"]?.algorithm == .sha512)
        #expect(sums.digests["c.bin"] != nil)
        for bad in ["abc  a.bin", "\(Self.digest)a.bin", "\(Self.digest)  ", "\(Self.digest)  a.bin\n\(long.prefix(64).replacingOccurrences(of: "c", with: "e"))  a.bin"] {
            #expect(throws: CLIFailure.self, "\(bad)") { try ChecksumsFile(parsing: bad, named: "SUMS") }
        }

        let batch = try BatchFile(parsing: "https://a.example/a.bin\nhttps://a.example/b.bin\tdir/b.bin\nhttps://a.example/z.bin", directory: Self.directory)
            .verified(by: sums, directory: Self.directory)
        #expect(batch.entries.map { $0.checksum?.algorithm } == [.sha256, .sha512, nil])
    }
}
