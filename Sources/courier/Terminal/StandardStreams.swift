import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The one way `courier` writes to standard output and standard error.
///
/// Bytes go out with POSIX `write(2)` in a loop (a call interrupted by a signal is made again, a partial write goes on
/// from where it stopped, a non-blocking descriptor is waited on), one whole call's bytes at a time per stream.
/// `FileHandle.write` is not used: it traps inside Foundation when the write fails.
///
/// - `EPIPE` means the reader left (`courier get URL | head -c 10`): the process ends at once, quietly, with status
///   141 (128 + SIGPIPE, what a shell shows for coreutils in the same pipe). SIGPIPE itself is ignored by the
///   runtime, so the failed write is how `courier` learns it.
/// - Any other failure (`ENOSPC`, `EIO`…) of standard output is a ``CLIFailure`` (status 4) whose message names the
///   stream and the reason; one of standard error cannot be reported anywhere, so the process ends quietly with
///   status 4.
enum StandardStreams {
    /// A standard stream.
    enum Stream: Sendable {
        /// Standard output (descriptor 1): data.
        case output
        /// Standard error (descriptor 2): messages and progress.
        case error

        var descriptor: Int32 { self == .output ? STDOUT_FILENO : STDERR_FILENO }
        var name: String { self == .output ? "standard output" : "standard error" }
    }

    /// The exit status when the reader of a stream has gone: 141, 128 + SIGPIPE.
    static let readerLeftStatus: Int32 = 141

    /// Keeps one call's bytes together on each stream when several threads write (progress, results, retries).
    private static let outputLock = Mutex(())
    private static let errorLock = Mutex(())

    /// Writes all of `data` to `stream` (default: standard output).
    /// - Throws: ``CLIFailure`` (status 4) when standard output cannot be written (a full disk, an I/O error). Never
    ///   throws for standard error (see ``StandardStreams``); a closed pipe ends the process with status 141.
    static func write(_ data: Data, to stream: Stream = .output) throws(CLIFailure) {
        guard !data.isEmpty else { return }
        let code = switch stream {
        case .output: outputLock.withLock { _ in writeAll(data, to: stream.descriptor) }
        case .error: errorLock.withLock { _ in writeAll(data, to: stream.descriptor) }
        }
        guard code != 0 else { return }
        if code == EPIPE { _exit(readerLeftStatus) }
        if stream == .error { _exit(ExitStatus.network.rawValue) }
        throw CLIFailure(status: .network, message: "cannot write to \(stream.name): \(String(cString: strerror(code)))")
    }

    /// Writes `text` (UTF-8) to `stream` (default: standard output); see ``write(_:to:)-(Data,_)``.
    static func write(_ text: String, to stream: Stream = .output) throws(CLIFailure) {
        try write(Data(text.utf8), to: stream)
    }

    /// Writes `text` to standard error: a message or progress. Never fails (see ``StandardStreams``).
    static func writeError(_ text: String) {
        // Standard error's failures end the process inside write; nothing is thrown for it.
        try? write(Data(text.utf8), to: .error)
    }

    /// Writes `text` to standard output where a failure cannot be thrown (a progress display's callback, the tour's
    /// log): a failure is reported on standard error as `courier: MESSAGE` and ends the process with its status (4).
    static func writeOutputOrExit(_ text: String) {
        do throws(CLIFailure) {
            try write(Data(text.utf8), to: .output)
        } catch {
            writeError("courier: \(error.message)\n")
            _exit(error.status.rawValue)
        }
    }

    /// Writes every byte of `data` to `descriptor`; returns 0, or the `errno` of the failure.
    private static func writeAll(_ data: Data, to descriptor: Int32) -> Int32 {
        data.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) -> Int32 in
            guard let base = buffer.baseAddress else { return 0 }
            var offset = 0
            while offset < buffer.count {
                let written = systemWrite(descriptor, base + offset, buffer.count - offset)
                if written > 0 {
                    offset += written
                    continue
                }
                let code = written < 0 ? errno : EIO
                switch code {
                case EINTR:
                    continue
                case EAGAIN, EWOULDBLOCK:
                    // A descriptor another program made non-blocking: wait until it takes bytes again.
                    var ready = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
                    _ = poll(&ready, 1, -1)
                default:
                    return code
                }
            }
            return 0
        }
    }

    private static func systemWrite(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
        #if canImport(Glibc)
        Glibc.write(descriptor, bytes, count)
        #else
        Darwin.write(descriptor, bytes, count)
        #endif
    }
}
