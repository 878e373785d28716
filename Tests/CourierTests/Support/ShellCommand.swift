import Foundation
import Synchronization

/// Runs a command line through bash (as a user would paste it) and collects what it printed.
///
/// Waiting is ``ChildWaiting``'s: polled, bounded, and the child killed with SIGKILL when it runs too long.
enum ShellCommand {
    struct Outcome: Sendable {
        let status: Int32
        let standardOutput: Data
        let standardError: String
    }

    /// Whether `curl` is on the PATH (the tests that run generated curl command lines need it).
    static let curlAvailable: Bool = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").contains { FileManager.default.isExecutableFile(atPath: "\($0)/curl") }
    }()

    /// Runs `commandLine` with `bash -c` and waits for it to end (killed after `timeout`).
    static func run(_ commandLine: String, timeout: Duration = .seconds(60)) async throws -> Outcome {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = ["-c", commandLine]
        let outPipe = Pipe(), errPipe = Pipe()
        process.standardOutput = outPipe
        process.standardError = errPipe
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let collected = CollectedOutput()
        collected.drain(outPipe.fileHandleForReading, into: \.out)
        collected.drain(errPipe.fileHandleForReading, into: \.err)
        _ = await ChildWaiting.waitForExit(process, timeout: timeout)
        _ = await ChildWaiting.waitForPipes(of: "bash -c \(commandLine.prefix(80).debugDescription)") {
            collected.openReaders.load(ordering: .acquiring) == 0
        }
        let (out, err) = collected.output.withLock { ($0.out, $0.err) }
        return Outcome(status: process.terminationStatus, standardOutput: out, standardError: String(decoding: err, as: UTF8.self))
    }

    /// Runs `commandLine` with `bash -c`, its output discarded, and returns its exit status (-1 when it could not
    /// run or was killed after `timeout`). For commands that leave a daemon behind: no pipe to wait on.
    static func status(of commandLine: String, timeout: Duration = .seconds(60)) async -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = ["-c", commandLine]
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return -1 }
        return await ChildWaiting.waitForExit(process, timeout: timeout) ? process.terminationStatus : -1
    }
}

/// What a child printed on each pipe, filled in by one reader thread per pipe.
private final class CollectedOutput: Sendable {
    struct Streams {
        var out = Data()
        var err = Data()
    }

    let output = Mutex(Streams())
    let openReaders = Atomic<Int>(2)

    func drain(_ handle: FileHandle, into stream: WritableKeyPath<Streams, Data> & Sendable) {
        Thread.detachNewThread { [self] in
            let data = handle.readDataToEndOfFile()
            output.withLock { $0[keyPath: stream] = data }
            openReaders.subtract(1, ordering: .releasing)
        }
    }
}
