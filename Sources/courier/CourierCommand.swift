import ArgumentParser
import Courier
import Foundation

/// `courier`: Courier's command-line client.
@main
struct CourierCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "courier",
        abstract: "HTTP from the command line, built on the Courier library.",
        discussion: """
        Request items: name==value (query), Header:value (header), name=value (field), \
        name:=json (raw JSON field), name@path (file upload, multipart), name=@path (a field's value \
        from a file), name:=@path (raw JSON from a file); a body piped on standard input is sent as it is.
        Exit codes: 0 success, 2 usage error, 3 HTTP status >= 400 with --check-status (always for \
        download), 4 network or TLS error (or standard output or the output file could not be written, e.g. a full disk), 5 download verification failed (size, Repr-Digest, \
        Content-Digest or Content-MD5), 6 some downloads of a batch failed, 130 stopped by SIGINT \
        (Ctrl-C), 141 the reader of standard output left (a closed pipe, as in `| head`), 143 stopped by SIGTERM (the shell's 128 + signal number; download keeps resume data).
        Defaults: options under [requests], [get] … [request], [download] or [batch] in $XDG_CONFIG_HOME/courier/config \
        (~/.config/courier/config; COURIER_CONFIG=FILE for another, empty for none) go before the command line's, \
        which win; the environment's proxy wins over the file's --proxy.
        """,
        version: CourierCommand.version,
        subcommands: [
            MethodCommand<GetMethod>.self, MethodCommand<HeadMethod>.self, MethodCommand<DeleteMethod>.self,
            BodyMethodCommand<PostMethod>.self, BodyMethodCommand<PutMethod>.self, BodyMethodCommand<PatchMethod>.self,
            RequestCommand.self,
            DownloadCommand.self, BatchCommand.self, QueueCommand.self,
            ServeCommand.self, TourCommand.self,
        ]
    )

    /// The release's number.
    static let versionNumber = "0.2.0"

    /// `courier --version`.
    static let version = "courier \(versionNumber) (Courier, AsyncHTTPClient on SwiftNIO)"

    /// The `User-Agent` of every request the command sends, as curl's `curl/8.5.0` and HTTPie's `HTTPie/3.2.2`:
    /// `-H 'User-Agent: …'` replaces it and `-H 'User-Agent:'` removes it.
    static let userAgent = "courier/\(versionNumber)"

    /// Parses the arguments and runs the command, mapping every failure to Courier's exit codes
    /// (argument-parser's own usage code is 64; Courier's is 2).
    static func main() async {
        var defaults: (arguments: [String], added: [String], file: URL?) = (Array(CommandLine.arguments.dropFirst()), [], nil)
        do {
            defaults = try DefaultsFile.arguments(defaults.arguments, environment: ProcessInfo.processInfo.environment)
            var command = try parseAsRoot(defaults.arguments)
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch let failure as CLIFailure {
            StandardStreams.writeError("courier: \(failure.message)\n")
            Foundation.exit(failure.status.rawValue)
        } catch {
            let code = exitCode(for: error)
            if code == .success || code.rawValue == ExitCode.success.rawValue {
                exit(withError: error)
            }
            StandardStreams.writeError("courier: \(fullMessage(for: error))\n")
            if let file = defaults.file, !defaults.added.isEmpty {
                StandardStreams.writeError("courier: note: \(file.path) added \(defaults.added.map(ShellQuoting.quote).joined(separator: " ")) before the command line's options\n")
            }
            Foundation.exit(ExitStatus.usage.rawValue)
        }
    }
}
