import Foundation
import Synchronization
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// One of the package's executables (`courier`, `CourierLeaseProbe`) run as a child process, with its standard
/// output and error collected as they arrive, so a test can wait for a line, send a signal and check the exit.
final class ChildProcess: Sendable {
    /// What the process printed and how it ended.
    struct Outcome: Sendable {
        let standardOutput: String
        let standardError: String
        /// The exit code, or the signal number when `terminatedBySignal`.
        let status: Int32
        let terminatedBySignal: Bool
        /// The most memory the process held (`VmHWM` as last read from `/proc` while it ran), in bytes.
        let peakResidentBytes: Int
    }

    private let process: Process
    private let output = Mutex<(out: String, err: String)>(("", ""))
    private let openReaders: Atomic<Int>
    private let peakResident = Atomic<Int>(0)

    /// The built executable `name`, found next to the test bundle.
    static func executable(_ name: String) throws -> URL {
        let directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let candidates = [directory, directory.deletingLastPathComponent()].map { $0.appendingPathComponent(name) }
        return try #require(candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) }, "\(name) is not built next to the tests")
    }

    /// How a child is started.
    enum Launcher: Sendable {
        /// As it is.
        case direct
        /// In a session of its own (`setsid --wait`), with no controlling terminal even when the tests run on one, for
        /// what must not reach a terminal (a password prompt); signals sent then reach `setsid`, not the process.
        case withoutTerminal
        /// In the network namespace of that name (`ip netns exec`, which becomes the process: signals reach it).
        case inNamespace(String)

        /// The program and the arguments before the child's path, or `nil` to start it directly.
        var command: (String, [String])? {
            switch self {
            case .direct: nil
            case .withoutTerminal: ("/usr/bin/setsid", ["--wait"])
            case .inNamespace(let name):
                (["/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip", "/bin/ip"].first(where: FileManager.default.isExecutableFile(atPath:)) ?? "ip",
                 ["netns", "exec", name])
            }
        }
    }

    /// Starts `name` with `arguments`; `environment` entries are added to this process's environment. Standard
    /// output goes to the file `standardOutput` when given (then ``Outcome/standardOutput`` is empty).
    /// `standardInput` is written to the process's standard input through a pipe, which is then closed; without
    /// it the process reads `/dev/null`. `launcher` may start it through another program (see ``Launcher``).
    init(
        _ name: String, _ arguments: [String], environment: [String: String] = [:], currentDirectory: URL? = nil,
        standardOutput: URL? = nil, standardInput: Data? = nil, launcher: Launcher = .direct
    ) throws {
        let process = Process()
        let executable = try Self.executable(name)
        if let (program, prefix) = launcher.command {
            process.executableURL = URL(fileURLWithPath: program)
            process.arguments = prefix + [executable.path] + arguments
        } else {
            process.executableURL = executable
            process.arguments = arguments
        }
        // No defaults file of the developer's reaches a test's courier unless the test names one.
        process.environment = ProcessInfo.processInfo.environment.merging(["COURIER_CONFIG": ""]) { $1 }.merging(environment) { $1 }
        if let currentDirectory { process.currentDirectoryURL = currentDirectory }
        let outPipe = Pipe(), errPipe = Pipe()
        if let standardOutput {
            _ = FileManager.default.createFile(atPath: standardOutput.path, contents: nil)
            process.standardOutput = try FileHandle(forWritingTo: standardOutput)
        } else {
            process.standardOutput = outPipe
        }
        openReaders = Atomic(standardOutput == nil ? 2 : 1)
        process.standardError = errPipe
        let inPipe = Pipe()
        process.standardInput = standardInput == nil ? FileHandle.nullDevice : inPipe
        self.process = process
        try process.run()
        if let standardInput {
            let writer = inPipe.fileHandleForWriting
            Thread.detachNewThread {
                try? writer.write(contentsOf: standardInput)
                try? writer.close()
            }
        }
        func read(_ handle: FileHandle, _ append: @escaping @Sendable (inout (out: String, err: String), String) -> Void) {
            Thread.detachNewThread {
                while true {
                    let chunk = handle.availableData
                    if chunk.isEmpty { break }
                    let text = String(decoding: chunk, as: UTF8.self)
                    self.output.withLock { append(&$0, text) }
                }
                self.openReaders.subtract(1, ordering: .releasing)
            }
        }
        if standardOutput == nil { read(outPipe.fileHandleForReading) { $0.out += $1 } }
        read(errPipe.fileHandleForReading) { $0.err += $1 }
        let pid = process.processIdentifier
        Thread.detachNewThread { [self] in
            // VmHWM is the peak so far; the last value read before the process ends is (nearly) its peak.
            while self.process.isRunning {
                if let peak = Self.peakResidentBytes(of: pid) { self.peakResident.store(peak, ordering: .relaxed) }
                usleep(10_000)
            }
        }
    }

    /// `VmHWM` of process `pid`, in bytes.
    private static func peakResidentBytes(of pid: Int32) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") }
        return line.flatMap { Int($0.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") }.map { $0 * 1024 }
    }

    /// Runs `name` to completion (killed after `timeout`) and returns what it printed and how it ended.
    static func run(
        _ name: String, _ arguments: [String], environment: [String: String] = [:], currentDirectory: URL? = nil,
        standardOutput: URL? = nil, standardInput: Data? = nil, launcher: Launcher = .direct, timeout: Duration = .seconds(60)
    ) async throws -> Outcome {
        let child = try ChildProcess(
            name, arguments, environment: environment, currentDirectory: currentDirectory, standardOutput: standardOutput,
            standardInput: standardInput, launcher: launcher
        )
        return try await child.finish(timeout: timeout)
    }

    /// The standard output and error so far.
    var printed: (out: String, err: String) { output.withLock { $0 } }

    /// Waits until standard output or error contains `text`; fails the test after `timeout` or when the process ends first.
    func waitFor(_ text: String, timeout: Duration = .seconds(30)) async throws {
        let deadline = ContinuousClock.now + timeout
        while true {
            let (out, err) = printed
            if out.contains(text) || err.contains(text) { return }
            if !process.isRunning || ContinuousClock.now > deadline {
                Issue.record("the child never printed \(text.debugDescription); stdout: \(out.suffix(2000)) stderr: \(err.suffix(2000))")
                throw CancellationError()
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Whether the child has not ended yet.
    var processIsRunning: Bool { process.isRunning }

    /// The child's process ID (for reading /proc/PID while it runs).
    var processIdentifier: Int32 { process.processIdentifier }

    /// Sends `signal` (SIGINT, SIGTERM, ...) to the child.
    func send(_ signal: Int32) {
        kill(process.processIdentifier, signal)
    }

    /// Waits for the child to end (sending SIGKILL after `timeout`, or when the test is cancelled) and returns its
    /// outcome.
    func finish(timeout: Duration = .seconds(60)) async throws -> Outcome {
        if !(await ChildWaiting.waitForExit(process, timeout: timeout)) {
            Issue.record("the child ran longer than \(timeout) or past its test's time limit and was killed")
        }
        _ = await ChildWaiting.waitForPipes(of: process.executableURL?.lastPathComponent ?? "the child") {
            openReaders.load(ordering: .acquiring) == 0
        }
        let (out, err) = printed
        return Outcome(
            standardOutput: out, standardError: err, status: process.terminationStatus,
            terminatedBySignal: process.terminationReason == .uncaughtSignal, peakResidentBytes: peakResident.load(ordering: .relaxed)
        )
    }
}
