import Foundation
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Issue #32, item 10: `courier download` killed with SIGKILL (as a crash, the OOM killer or a power cut would stop
/// it) never leaves a file under its final name, and keeps what it received: the body goes to `FILE.part` with its
/// record beside it from the first byte, and `--continue` resumes by `Range` with `If-Range`. Against nginx sending
/// 1 MiB/s (`limit_rate`), killed twice at different points.
@Suite(
    "courier download killed with SIGKILL (nginx)",
    .enabled(NginxServer.skipMessage) { await NginxInterop.isRunning() },
    .timeLimit(.minutes(3))
)
struct CLIKilledTransferTests {
    static let size = 6 << 20

    @Test func aKilledDownloadLeavesNoFinalFileAndContinues() async throws {
        let ca = try #require(NginxServer.environment["COURIER_NGINX_CA"])
        let slow = try NginxInterop.servedFile("slow")
        try FileManager.default.createDirectory(at: slow, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        let name = "killed-\(UUID().uuidString).bin"
        let served = slow.appendingPathComponent(name)
        try NginxInterop.writeServedFile(served, size: Self.size, modified: Date(timeIntervalSince1970: 1_700_000_000))
        defer { try? FileManager.default.removeItem(at: served) }
        let folder = try Fixtures.temporaryDirectory("killed-download")
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = folder.appendingPathComponent("big.bin")
        let partial = folder.appendingPathComponent("big.bin.part")
        let probe = NginxInterop.probe()
        let url = try NginxInterop.url("slow/\(name)", probe: probe).absoluteString

        // Killed at about 1 MiB, then (continuing) at about 3 MiB.
        for (index, point) in [Int64(1 << 20), Int64(3 << 20)].enumerated() {
            var arguments = ["download", "--cacert", ca, url, "-o", output.path]
            if index > 0 { arguments.append("--continue") }
            let child = try ChildProcess("courier", arguments)
            #expect(await fileGrows(partial, beyond: point), "\(partial.lastPathComponent) never passed \(point) bytes")
            child.send(SIGKILL)
            _ = try await child.finish(timeout: .seconds(10))
            #expect(!FileManager.default.fileExists(atPath: output.path), "a killed download left \(output.lastPathComponent)")
            #expect(try NginxInterop.size(of: partial) > point)
            #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("big.bin.courier-resume").path))
        }
        let kept = try NginxInterop.size(of: partial)
        let finished = try await ChildProcess.run("courier", ["download", "--cacert", ca, url, "-o", output.path, "--continue"])
        #expect(finished.status == 0, "\(finished.standardError)")
        #expect(try Data(contentsOf: output) == (try Data(contentsOf: served)), "the continued file is not the served one")
        #expect(!FileManager.default.fileExists(atPath: partial.path))

        let log = try await NginxInterop.accessLog(probe: probe, count: 3)
        #expect(log.count == 3, "\(log.map(\.description))")
        #expect(log.dropFirst().allSatisfy { $0.status == 206 && $0.ifRange != nil && $0.range != nil }, "\(log.map(\.description))")
        #expect(log.last?.range == "bytes=\(kept)-", "\(log.map(\.description))")
    }

    /// `courier batch` killed with SIGKILL midway: no file is under its final name before it is whole and verified;
    /// the next run continues each by `Range` with `If-Range`, and a run after that sends nothing.
    @Test func aKilledBatchContinuesAndARerunFetchesNothing() async throws {
        let ca = try #require(NginxServer.environment["COURIER_NGINX_CA"])
        let slow = try NginxInterop.servedFile("slow")
        try FileManager.default.createDirectory(at: slow, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        let names = (0..<3).map { "batch-\($0)-\(UUID().uuidString).bin" }
        for name in names {
            try NginxInterop.writeServedFile(slow.appendingPathComponent(name), size: 3 << 20, modified: Date(timeIntervalSince1970: 1_700_000_000))
        }
        defer { for name in names { try? FileManager.default.removeItem(at: slow.appendingPathComponent(name)) } }
        let folder = try Fixtures.temporaryDirectory("killed-batch")
        defer { try? FileManager.default.removeItem(at: folder) }
        let probe = NginxInterop.probe()
        let list = folder.appendingPathComponent("list.txt")
        try names.enumerated().map { index, name in "\(try NginxInterop.url("slow/\(name)", probe: probe).absoluteString)\tfile\(index).bin" }
            .joined(separator: "\n").write(to: list, atomically: true, encoding: .utf8)
        let arguments = ["batch", list.path, "--concurrency", "3", "--cacert", ca, "--output-dir", folder.path]

        let child = try ChildProcess("courier", arguments)
        #expect(await fileGrows(folder.appendingPathComponent("file0.bin.part"), beyond: 1 << 20), "file0.bin.part never passed 1 MiB")
        child.send(SIGKILL)
        _ = try await child.finish(timeout: .seconds(10))
        for index in 0..<3 {
            #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("file\(index).bin").path), "file\(index).bin took its final name")
        }

        let again = try await ChildProcess.run("courier", arguments)
        #expect(again.status == 0, "\(again.standardOutput) \(again.standardError)")
        for (index, name) in names.enumerated() {
            let saved = try Data(contentsOf: folder.appendingPathComponent("file\(index).bin"))
            #expect(saved == (try Data(contentsOf: slow.appendingPathComponent(name))), "file\(index).bin")
        }
        let log = try await NginxInterop.accessLog(probe: probe, count: 6)
        let continued = log.filter { $0.status == 206 }
        #expect(!continued.isEmpty && continued.allSatisfy { $0.ifRange != nil }, "\(log.map(\.description))")

        let third = try await ChildProcess.run("courier", arguments)
        #expect(third.status == 0, "\(third.standardOutput) \(third.standardError)")
        #expect(third.standardOutput.contains("finished by an earlier run"), "\(third.standardOutput)")
        // Exactly the lines of the two runs before: the third sent nothing.
        _ = try await NginxInterop.settledAccessLog(probe: probe, count: log.count)
    }
}
