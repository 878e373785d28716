import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Asks for a password on the controlling terminal without echoing it, as curl and HTTPie do for `-u user`.
enum PasswordPrompt {
    /// The line typed after `prompt` on `/dev/tty`, or `nil` when the process has no controlling terminal (a
    /// service or a detached script cannot answer) or it cannot be used. Standard input may be a pipe: as curl's, the
    /// prompt is on the terminal, so that `echo body | courier post -u user URL` works. Ctrl-C ends the process with
    /// status 130 once the terminal echoes again.
    static func ask(_ prompt: String) -> String? {
        let tty = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard tty >= 0 else { return nil }
        defer { close(tty) }
        guard isatty(tty) == 1 else { return nil }
        var saved = termios()
        guard tcgetattr(tty, &saved) == 0 else { return nil }
        var silent = saved
        // Without ISIG, Ctrl-C arrives as a byte instead of a SIGINT that would end the process with echo still off.
        silent.c_lflag &= ~tcflag_t(ECHO | ISIG)
        // Silent before the prompt is shown: TCSAFLUSH discards input typed so far, and an answer typed (or written
        // by a program) the moment the prompt appears must come after that discard, not be lost to it.
        guard tcsetattr(tty, TCSAFLUSH, &silent) == 0 else { return nil }
        _ = prompt.withCString { write(tty, $0, strlen($0)) }
        let interrupt = withUnsafeBytes(of: saved.c_cc) { $0[Int(VINTR)] }
        let line = readLine(tty, interrupt: interrupt)
        _ = tcsetattr(tty, TCSANOW, &saved)
        _ = write(tty, "\n", 1)
        switch line {
        case .typed(let bytes): return String(decoding: bytes, as: UTF8.self)
        case .failed: return nil
        case .interrupted: exit(StopSignals.exitCode(for: SIGINT))
        }
    }

    private enum Line {
        case typed([UInt8])
        /// A read error: no password, rather than the part typed so far.
        case failed
        case interrupted
    }

    /// Bytes up to the end of the line (or of input).
    private static func readLine(_ tty: Int32, interrupt: UInt8) -> Line {
        var line: [UInt8] = []
        var byte: UInt8 = 0
        while true {
            let count = withUnsafeMutableBytes(of: &byte) { read(tty, $0.baseAddress, 1) }
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { return .failed }
            guard count == 1, byte != UInt8(ascii: "\n"), byte != UInt8(ascii: "\r") else { return .typed(line) }
            if byte == interrupt { return .interrupted }
            line.append(byte)
        }
    }
}
