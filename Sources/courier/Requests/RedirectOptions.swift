import ArgumentParser
import Courier

/// `--follow`/`--no-follow` and `--max-redirects`: the same for every command that sends requests (the request
/// commands, `download` and `batch`).
struct RedirectOptions: ParsableArguments {
    @Flag(inversion: .prefixedNo, help: "Follow redirects (default), or deliver the redirect response itself (download and batch then fail with its status, as for any answer that is not the file).")
    var follow = true

    @Option(name: .customLong("max-redirects"), parsing: .unconditional, help: ArgumentHelp("The most redirects followed before failing (0 to 1000).", valueName: "n"))
    var maxRedirectsGiven: OptionNumber = 16

    /// `--max-redirects` (default 16), bounded by ``NumericOption/maxRedirects``.
    var maxRedirects: Int {
        get throws(CLIFailure) { try NumericOption.maxRedirects.count(maxRedirectsGiven) }
    }

    /// Puts both into the settings every exchange of the command gets.
    /// - Throws: ``CLIFailure`` (usage) for a `--max-redirects` out of bounds.
    func apply(to settings: inout RequestSettings) throws(CLIFailure) {
        settings.followsRedirects = follow
        settings.maximumRedirects = try maxRedirects
    }
}
