import ArgumentParser
import Courier
import Foundation

/// `--session`, `--session-read-only` and `--cache`: what a run keeps for the next one. Every command that sends
/// requests takes them (`get` … `request`, `download`, `batch`).
struct SessionOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Keep cookies, the -u credential and custom headers between runs in this session: a name (kept per host under ~/.config/courier/sessions) or a path to a JSON file (mode 0600).", valueName: "name|path"))
    var session: String?

    @Option(help: ArgumentHelp("Use a session like --session, without writing back what this run changed.", valueName: "name|path"))
    var sessionReadOnly: String?

    @Option(help: ArgumentHelp("Keep responses in an HTTP cache in this directory (RFC 9111), so a fresh response is not fetched again by a later run. Default: no cache.", valueName: "directory"))
    var cache: String?

    /// Checks what argument-parser cannot.
    /// - Throws: ``CLIFailure`` (usage).
    func check() throws {
        if session != nil, sessionReadOnly != nil { throw CLIFailure.usage("give --session or --session-read-only, not both") }
    }

    /// The session for requests to `url` (a name is kept per host and port), loaded; `nil` without `--session`.
    /// - Throws: ``CLIFailure`` (usage) for a bad name or a file that is not a session.
    func open(for url: URL?) throws -> SessionInUse? {
        guard let argument = session ?? sessionReadOnly else { return nil }
        let location = try SessionFile.location(of: argument, for: url)
        return try SessionInUse(
            location: location, file: try SessionFile.load(from: location), isNamed: !argument.contains("/"), writesBack: session != nil
        )
    }

    /// The cache in `--cache`'s directory (created when missing), or `nil` without the option.
    /// - Throws: ``CLIFailure`` (usage) when the directory cannot be used.
    func httpCache() throws -> HTTPCache? {
        do {
            return try cache.map { try HTTPCache(directory: URL(fileURLWithPath: $0)) }
        } catch {
            throw CLIFailure.usage("--cache: \(error)")
        }
    }
}
