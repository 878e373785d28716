import CourierTestServer
import Foundation
import Testing

/// `courier download` onto a full disk: a 1 MiB tmpfs (mounted here; skipped where mounting is not permitted) takes
/// a 3 MB download. The download fails with one clear line and exit 4; once there is space again (the tmpfs remounted
/// bigger), `--continue` finishes it and the file matches the server's.
@Suite("courier download onto a full disk", .timeLimit(.minutes(3)))
struct CLIFullDiskTests {
    /// A fresh tmpfs of `size` (`1m`) at a new directory, or `nil` when it cannot be mounted.
    static func mountTemporaryFileSystem(size: String) async -> URL? {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("courier-full-disk-\(UUID().uuidString)")
        guard (try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)) != nil else { return nil }
        guard await ShellCommand.status(of: "mount -t tmpfs -o size=\(size) tmpfs '\(folder.path)'") == 0 else {
            try? FileManager.default.removeItem(at: folder)
            return nil
        }
        return folder
    }

    @Test func aFullDiskIsOneClearLineAndContinueFinishesOnceThereIsSpace() async throws {
        guard let folder = await Self.mountTemporaryFileSystem(size: "1m") else {
            print("skipped: cannot mount a tmpfs here (needs root or CAP_SYS_ADMIN)")
            return
        }
        defer {
            let unmount = Process()
            unmount.executableURL = URL(fileURLWithPath: "/bin/umount")
            unmount.arguments = [folder.path]
            try? unmount.run()
            unmount.waitUntilExit()
            try? FileManager.default.removeItem(at: folder)
        }
        let file = folder.appendingPathComponent("blob.bin")
        let url = try await Fixtures.url("/download/3000000?seed=11").absoluteString
        let full = try await ChildProcess.run("courier", ["download", url, "-o", file.path])
        #expect(!full.terminatedBySignal, "killed by signal \(full.status): \(full.standardError.suffix(2000))")
        #expect(full.status == 4, "\(full.standardError.suffix(2000))")
        let last = full.standardError.split(separator: "\n").last.map(String.init) ?? ""
        #expect(last.hasPrefix("courier: no space left on device"), "\(full.standardError.suffix(2000))")
        #expect(!full.standardError.contains("Error Domain="), "\(full.standardError.suffix(2000))")
        if let kept = last.components(separatedBy: "were kept at ").dropFirst().first {
            try? FileManager.default.removeItem(atPath: kept)
        }

        #expect(await ShellCommand.status(of: "mount -o remount,size=16m '\(folder.path)'") == 0)
        let resumed = try await ChildProcess.run("courier", ["download", url, "-o", file.path, "--continue"])
        #expect(resumed.status == 0, "\(resumed.standardError.suffix(2000))")
        #expect(try sha256Hex(ofFile: file) == TestPayload.bytes(count: 3_000_000, seed: 11).sha256Hex)
    }
}
