import ArgumentParser
import Foundation

/// The options every request command shares (`get`, `head`, `delete`, `post`, `put`, `patch`), beside the groups
/// ``RequestCommandGroups`` lists (no group holds another: see there).
struct RequestOptions: ParsableArguments {
    @Argument(help: "The URL, e.g. http://127.0.0.1:8080/get; as in HTTPie, :8080/get is http://localhost:8080/get and a URL without a scheme takes http://.")
    var url: String

    @Argument(help: "Request items: name==value, Header:value, name=value, name:=json, name@file (upload), name=@file (a field from a file), name:=@file.json (raw JSON from a file).")
    var items: [String] = []

    @Option(name: .customLong("timeout"), parsing: .unconditional, help: ArgumentHelp("Seconds without any byte moving before the request fails (0.001 to a year).", valueName: "seconds"))
    var timeoutGiven: OptionNumber = 30

    @Option(name: .customLong("max-time"), parsing: .unconditional, help: ArgumentHelp("Seconds the whole request may take, redirects, retries and body included, before it is stopped (curl's --max-time; 0.001 to a year). Default: no limit.", valueName: "seconds"))
    var maxTimeGiven: OptionNumber?

    @Option(help: ArgumentHelp("Send this text as the body (instead of fields or standard input).", valueName: "text"))
    var raw: String?

    @Option(help: ArgumentHelp("The Content-Type of a --raw or piped body (default: application/json when it parses as JSON, else application/octet-stream).", valueName: "type"))
    var contentType: String?

    @Flag(help: "Do not read a body from standard input even when it is a pipe or a file.")
    var ignoreStdin = false

    @Option(name: [.customShort("o"), .long], help: ArgumentHelp("Write the response body to this file as it arrives.", valueName: "file"))
    var output: String?

    @Flag(help: "Print the equivalent curl command line and exit without sending the request.")
    var printCurl = false

    @Flag(name: .shortAndLong, help: "Print the request and response heads of every hop and the timings (on stderr), and the response headers.")
    var verbose = false

    @Flag(help: "Exit with 3 when the response status is 400 or above.")
    var checkStatus = false

    /// `--timeout` in seconds (default 30), bounded by ``NumericOption/timeout``.
    var timeout: Double {
        get throws(CLIFailure) { try NumericOption.timeout.seconds(timeoutGiven) }
    }

    /// `--max-time` in seconds, bounded by ``NumericOption/maxTime``; `nil` (the default) for no limit.
    var maxTime: Double? {
        get throws(CLIFailure) {
            guard let maxTimeGiven else { return nil }
            return try NumericOption.maxTime.seconds(maxTimeGiven)
        }
    }

    /// Checks the values argument-parser cannot (run-time, so that the message is one line): the numeric options
    /// through ``NumericOption`` (the runner checks `--max-redirects` before these, the session's and the common
    /// options after).
    /// - Throws: ``CLIFailure`` (usage).
    func check() throws {
        _ = try timeout
        _ = try maxTime
    }
}
