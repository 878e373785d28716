import Foundation
import Testing

/// Runs the built `courier` on a pseudo-terminal (Python's `pty` module), optionally answering one prompt, and
/// returns what the terminal showed: for the behaviours that only a terminal gets (colours, a password prompt).
enum PseudoTerminal {
    struct Outcome {
        let shown: String
        let status: Int32
    }

    private static let script = """
    import os, pty, signal, sys
    # Started from a thread of Swift's cooperative pool, this process inherits its signal mask, which blocks
    # SIGALRM and SIGTERM: unblocked, so that the alarm below (and a terminal's signals for courier) take effect.
    signal.pthread_sigmask(signal.SIG_SETMASK, [])
    # Ends this script (and, with the terminal closed, courier) if anything waits forever: the test's bash and its
    # pipes must not outlive it.
    signal.alarm(25)
    prompt, answer = sys.argv[1].encode(), sys.argv[2].encode()
    pid, fd = pty.fork()
    if pid == 0:
        os.execv(sys.argv[3], sys.argv[3:])
    seen = b""
    if prompt:
        try:
            while prompt not in seen:
                chunk = os.read(fd, 1024)
                if not chunk:
                    break
                seen += chunk
            os.write(fd, answer + b"\\n")
        except OSError:
            pass  # courier ended without asking: what it showed tells the test why
    while True:
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            break
        if not chunk:
            break
        seen += chunk
    _, status = os.waitpid(pid, 0)
    sys.stdout.write(seen.decode(errors="replace"))
    sys.exit(os.waitstatus_to_exitcode(status))
    """

    /// Runs `courier arguments` on a terminal, with `environment` added (`NAME=value` through `env`), answering
    /// `prompt` with `answer` when given. `afterwards`, a shell command, runs on the same terminal once courier has
    /// ended (which then prints `exit=STATUS` first, and the status returned is the shell's). `standardInput`, when
    /// given, reaches courier through a pipe instead of the terminal.
    static func courier(
        _ arguments: [String], environment: [String: String] = [:], standardInput: String? = nil,
        prompt: String = "", answer: String = "", afterwards: String? = nil
    ) async throws -> Outcome {
        let scriptFile = Fixtures.temporaryFile("pty-\(UUID().uuidString).py")
        defer { try? FileManager.default.removeItem(at: scriptFile) }
        try Data(script.utf8).write(to: scriptFile)
        let courier = try ChildProcess.executable("courier").path
        var command = [courier] + arguments
        if let standardInput {
            command = ["/bin/sh", "-c", "printf '%s' \"$0\" | \"$@\"", standardInput] + command
        }
        if let afterwards {
            command = ["/bin/sh", "-c", "\"$@\"; echo \"exit=$?\"; \(afterwards)", "sh"] + command
        }
        let quoted = command.map(quote).joined(separator: " ")
        let variables = environment.map { "\($0.key)=\(quote($0.value))" }.joined(separator: " ")
        let outcome = try await ShellCommand.run(
            "env -u NO_COLOR \(variables) python3 \(quote(scriptFile.path)) \(quote(prompt)) \(quote(answer)) \(quoted)", timeout: .seconds(30)
        )
        return Outcome(shown: String(decoding: outcome.standardOutput, as: UTF8.self), status: outcome.status)
    }

    /// `text` as one word of a POSIX shell.
    private static func quote(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
