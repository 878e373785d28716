import ArgumentParser
import Foundation

/// The options every request command shares (`get`, `head`, `delete`, `post`, `put`, `patch`).
struct RequestOptions: ParsableArguments {
    @Argument(help: "The URL, e.g. http://127.0.0.1:8080/get.")
    var url: String

    @Argument(help: "Request items: name==value, Header:value, name=value, name:=json, name@file (upload), name=@file (a field from a file), name:=@file.json (raw JSON from a file).")
    var items: [String] = []

    @Flag(inversion: .prefixedNo, help: "Follow redirects (default), or deliver the redirect response itself.")
    var follow = true

    @Option(help: ArgumentHelp("The most redirects followed before failing.", valueName: "n"))
    var maxRedirects = 16

    @Option(help: ArgumentHelp("Seconds without any byte moving before the request fails.", valueName: "seconds"))
    var timeout: Double = 30

    @Option(help: ArgumentHelp("Seconds the whole request may take, redirects, retries and body included, before it is stopped (curl's --max-time). Default: no limit.", valueName: "seconds"))
    var maxTime: Double?

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

    @OptionGroup
    var kept: SessionOptions

    @OptionGroup(title: "Output")
    var display: DisplayOptions

    @OptionGroup
    var common: CommonRequestOptions

    /// Checks the values argument-parser cannot (run-time, so that the message is one line).
    /// - Throws: ``CLIFailure`` (usage).
    func check() throws {
        guard maxRedirects >= 0 else { throw CLIFailure.usage("--max-redirects must be 0 or more") }
        guard timeout > 0, timeout.isFinite else { throw CLIFailure.usage("--timeout must be a positive number of seconds") }
        try kept.check()
        if let maxTime, !(maxTime > 0 && maxTime.isFinite) { throw CLIFailure.usage("--max-time must be a positive number of seconds") }
        try common.check()
    }
}
