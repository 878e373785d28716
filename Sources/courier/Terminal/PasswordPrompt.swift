import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Asks for a password on the controlling terminal without echoing it, as curl and HTTPie do for `-u user`.
enum PasswordPrompt {
    /// The line typed after `prompt` on `/dev/tty`, or `nil` when standard input is not a terminal (a script
    /// cannot answer) or the terminal cannot be used.
    static func ask(_ prompt: String) -> String? {
        guard isatty(STDIN_FILENO) == 1 else { return nil }
        let tty = open("/dev/tty", O_RDWR | O_NOCTTY)
        guard tty >= 0 else { return nil }
        defer { close(tty) }
        var saved = termios()
        guard tcgetattr(tty, &saved) == 0 else { return nil }
        var silent = saved
        silent.c_lflag &= ~tcflag_t(ECHO)
        _ = prompt.withCString { write(tty, $0, strlen($0)) }
        guard tcsetattr(tty, TCSAFLUSH, &silent) == 0 else { return nil }
        defer {
            _ = tcsetattr(tty, TCSAFLUSH, &saved)
            _ = write(tty, "\n", 1)
        }
        var line: [UInt8] = []
        var byte: UInt8 = 0
        while true {
            let count = readByte(tty, &byte)
            if count < 0, errno == EINTR { continue }
            // An error is no password, rather than the part typed so far.
            guard count >= 0 else { return nil }
            guard count == 1, byte != UInt8(ascii: "\n"), byte != UInt8(ascii: "\r") else { break }
            line.append(byte)
        }
        return String(decoding: line, as: UTF8.self)
    }

    private static func readByte(_ descriptor: Int32, _ byte: inout UInt8) -> Int {
        withUnsafeMutableBytes(of: &byte) { read(descriptor, $0.baseAddress, 1) }
    }
}
