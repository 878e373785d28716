import ArgumentParser
import Courier
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What a request command prints, and how (HTTPie's `--print`, `--pretty` and `--offline`).
struct DisplayOptions: ParsableArguments {
    @Option(name: [.customShort("p"), .long], help: ArgumentHelp(
        "What to print: H request head, B request body, h response head, b response body (default on a terminal: the status line and the body; in a pipe: the body alone, as raw bytes).",
        valueName: "HBhb"
    ))
    var print: String?

    @Option(help: ArgumentHelp("format: pretty-print JSON bodies; none: print bodies as received (default: format on a terminal, none in a pipe).", valueName: "format|none"))
    var pretty: PrettyStyle?

    @Flag(help: "Build the request and print it (head and body) without sending it.")
    var offline = false

    @Flag(name: [.customShort("S"), .long], help: "Print the body as it arrives, instead of holding a JSON body to format it whole: line by line (line-delimited JSON), or event by event for text/event-stream (Server-Sent Events), each JSON line or event data formatted on a terminal. An event stream printed event by event whose connection fails mid-stream is opened again after the server's retry: delay (3 s by default), with Last-Event-ID; a stream the server ends cleanly ends the command.")
    var stream = false

    @Option(name: .customLong("response-charset"), help: ArgumentHelp("Read a body as text in this charset, whatever the response says, wherever bodies are formatted (a terminal, or --pretty format; HTTPie's option).", valueName: "charset"))
    var responseCharset: String?

    @Option(name: .customLong("response-mime"), help: ArgumentHelp("Format a body as this media type, whatever the response says (application/json for JSON sent as text/plain; HTTPie's option).", valueName: "type"))
    var responseMime: String?

    enum PrettyStyle: String, ExpressibleByArgument {
        case format, none
    }

    /// The parts of an exchange to print.
    struct Selection: Equatable {
        var requestHead = false
        var requestBody = false
        /// The status line alone (a terminal's default), without the header fields.
        var statusLine = false
        var responseHead = false
        var responseBody = false
    }

    /// The selection for this run: `--print`, else `--offline`'s request, else `--verbose`'s heads and body, else
    /// the terminal's or the pipe's default.
    func selection(verbose: Bool, standardOutputIsTerminal: Bool) throws -> Selection {
        if let print {
            var selection = Selection()
            for letter in print {
                switch letter {
                case "H": selection.requestHead = true
                case "B": selection.requestBody = true
                case "h": selection.responseHead = true
                case "b": selection.responseBody = true
                default: throw CLIFailure.usage("--print takes the letters H, B, h and b, not \"\(letter)\"")
                }
            }
            return selection
        }
        if offline { return Selection(requestHead: true, requestBody: true) }
        if verbose { return Selection(responseHead: true, responseBody: true) }
        return standardOutputIsTerminal ? Selection(statusLine: true, responseBody: true) : Selection(responseBody: true)
    }

    /// Checks `--response-charset` (a charset this platform decodes) and `--response-mime` (type/subtype).
    /// - Throws: ``CLIFailure`` (usage).
    func checkOverrides() throws(CLIFailure) {
        if let responseCharset, CharsetDecoding.encoding(forCharset: responseCharset) == nil {
            throw CLIFailure.usage("--response-charset \(responseCharset): not a charset this platform can decode")
        }
        if let responseMime {
            let parts = responseMime.split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count == 2, parts.allSatisfy({ !$0.isEmpty && !$0.contains(where: { $0.isWhitespace || $0 == ";" }) }) else {
                throw CLIFailure.usage("--response-mime \(responseMime): expected type/subtype, e.g. application/json")
            }
        }
    }

    /// Whether bodies are pretty-printed.
    func formatsBodies(standardOutputIsTerminal: Bool) -> Bool {
        pretty.map { $0 == .format } ?? standardOutputIsTerminal
    }

    static var standardOutputIsTerminal: Bool { isatty(STDOUT_FILENO) == 1 }
}
