import CourierTestServer
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `courier download` with standard output and error on a pseudo-terminal: the progress is one line
/// redrawn in place with a bar, not the plain lines a pipe gets.
@Suite("courier download on a terminal", .timeLimit(.minutes(1)))
struct CLITerminalProgressTests {
    /// Runs the built `courier` with both output streams on a new pseudo-terminal; returns everything
    /// written to it and the exit status.
    static func runOnTerminal(_ arguments: [String]) throws -> (output: String, status: Int32) {
        // The pseudo-terminal functions are in glibc but hidden from Swift's Glibc module (they need
        // _XOPEN_SOURCE), so they are looked up by name.
        let openTerminal = try libc("posix_openpt", as: (@convention(c) (Int32) -> Int32).self)
        let grant = try libc("grantpt", as: (@convention(c) (Int32) -> Int32).self)
        let unlock = try libc("unlockpt", as: (@convention(c) (Int32) -> Int32).self)
        let secondaryName = try libc("ptsname", as: (@convention(c) (Int32) -> UnsafeMutablePointer<CChar>?).self)
        let primary = openTerminal(O_RDWR | O_NOCTTY)
        try #require(primary >= 0, "posix_openpt failed: \(errno)")
        defer { close(primary) }
        try #require(grant(primary) == 0 && unlock(primary) == 0)
        let name = try #require(secondaryName(primary).map { String(cString: $0) })
        let secondary = open(name, O_RDWR | O_NOCTTY)
        try #require(secondary >= 0, "cannot open \(name): \(errno)")
        let terminal = FileHandle(fileDescriptor: secondary, closeOnDealloc: true)

        let process = Process()
        process.executableURL = try ChildProcess.executable("courier")
        process.arguments = arguments
        process.standardOutput = terminal
        process.standardError = terminal
        process.standardInput = FileHandle.nullDevice
        try process.run()
        try terminal.close()   // only the child holds the terminal now: reads end when it exits

        var output = Data()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(primary, &buffer, buffer.count)
            if count <= 0 { break }   // EIO once the child closed its side
            output.append(contentsOf: buffer[0..<count])
        }
        process.waitUntilExit()
        return (String(decoding: output, as: UTF8.self), process.terminationStatus)
    }

    /// The C function `name` from the C library already loaded in this process.
    static func libc<Function>(_ name: String, as type: Function.Type) throws -> Function {
        let pointer = try #require(dlsym(dlopen(nil, RTLD_NOW), name), "\(name) is not in the C library")
        return unsafeBitCast(pointer, to: type)
    }

    /// Runs `command` (`download` or `get`) with `-o file` on a terminal for 300,000 throttled bytes of `seed`, and
    /// checks that it succeeded, saved exactly those bytes and drew one redrawn bar; returns what the terminal showed
    /// and the URL.
    static func transferOnTerminal(_ command: String, seed: Int, into file: URL) async throws -> (output: String, url: String) {
        let url = try await Fixtures.url("/download/300000?seed=\(seed)&rate=300000").absoluteString
        let (output, status) = try runOnTerminal([command, url, "-o", file.path])
        #expect(status == 0, "\(output)")
        #expect(try sha256Hex(ofFile: file) == TestPayload.bytes(count: 300_000, seed: UInt64(seed)).sha256Hex)
        expectRedrawnBar(output, finalFigures: "293 KiB  100%  ")
        return (output, url)
    }

    /// `output` is one line redrawn in place: several redraws (carriage return, erase line, a bar and the figures),
    /// running lines never ended by a new line, and the final figures last, ended by one (the terminal shows "\r\n").
    static func expectRedrawnBar(_ output: String, finalFigures: String) {
        let redraws = output.components(separatedBy: "\r\u{1B}[K[").count - 1
        #expect(redraws >= 3, "\(output.debugDescription)")
        #expect(output.contains("ETA "))
        #expect(!output.contains("ETA --:--\r\n"), "a running line is never ended with a new line")
        #expect(output.contains("\r\u{1B}[K" + finalFigures), "\(output.debugDescription)")
        #expect(output.range(of: #"in 0:0\d\r\n"#, options: .regularExpression) != nil, "\(output.debugDescription)")
    }

    @Test func progressIsOneRedrawnLineWithABar() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("courier-cli-tty-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("tty.bin")
        let (output, _) = try await Self.transferOnTerminal("download", seed: 18, into: file)
        #expect(output.contains("saved \(file.path) (300000 bytes"))
    }

    /// `get -o FILE` shows the bar `download` shows, and only on a terminal (a pipe's standard error stays as it was).
    @Test func getToAFileShowsTheSameBar() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("courier-cli-tty-get-\(UUID().uuidString).bin")
        defer { try? FileManager.default.removeItem(at: file) }
        let (output, url) = try await Self.transferOnTerminal("get", seed: 19, into: file)
        #expect(output.contains("courier: wrote 300000 bytes to \(file.path)"))

        let piped = try await CLIRequestTests.courier(["get", url, "-o", file.path + ".piped"])
        defer { try? FileManager.default.removeItem(atPath: file.path + ".piped") }
        #expect(piped.status == 0)
        #expect(piped.standardError == "courier: wrote 300000 bytes to \(file.path).piped\n", "no progress in a pipe")
    }
}
