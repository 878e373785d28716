import Courier
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Prints an exchange on standard output the way HTTPie does: the request's head and body when asked, the status
/// line or the whole response head, then the body as it arrives.
///
/// The body is never held whole: it goes out chunk by chunk; when bodies are formatted (a terminal's default), a
/// JSON body is held (up to ``prettyPrintLimit``) only to be pretty-printed, one that grows past that is printed as
/// it arrives instead, a text body in another charset than the terminal's is held the same way to be shown in the
/// terminal's (``TerminalEncoding``), and on a terminal a binary body is counted, not shown. With `--stream`, lines are held up to
/// ``StreamedLines/maximumLineLength`` each (see ``StreamedLines``). In a pipe the bytes go out as received.
struct ResponsePrinter {
    /// The most bytes of a JSON body held to pretty-print it: 8 MiB.
    static let prettyPrintLimit = 8 << 20

    let verbose: Bool
    /// Whether JSON bodies are pretty-printed and binary ones summarized (`--pretty`).
    var formatsBodies = true
    /// Whether the body is printed line by line as it arrives (`--stream`) rather than held to be formatted.
    var streamsLines = false
    /// Whether standard output is a terminal (binary bodies are summarized there, as HTTPie does).
    var isTerminal = isatty(STDOUT_FILENO) == 1
    /// `--response-charset`: the charset a body is read in where bodies are formatted, instead of the response's.
    var charsetOverride: String?
    /// `--response-mime`: the media type a body is formatted as, instead of the response's.
    var mediaTypeOverride: String?
    /// The encoding text is shown in: the terminal's (see ``TerminalEncoding``).
    var displayEncoding = TerminalEncoding.current()
    /// Whether heads and JSON are coloured (see ``TerminalColors/enabled(isTerminal:formatsBodies:environment:)``).
    var colours: Bool { TerminalColors.enabled(isTerminal: isTerminal, formatsBodies: formatsBodies) }

    /// Prints the request line and header fields (`head`) and a body held in memory (`body`), before it is sent.
    /// - Throws: ``CLIFailure`` when standard output cannot be written.
    func printRequest(_ request: URLRequest, head: Bool, body: Bool) throws(CLIFailure) {
        var text = ""
        if head { text += VerboseTrace.requestHead(request).map { $0 + "\n" }.joined() }
        if body, let data = request.httpBody, !data.isEmpty {
            if head { text += "\n" }
            try write(Data(text.utf8))
            text = ""
            if formatsBodies, request.value(forHTTPHeaderField: "Content-Type")?.lowercased().contains("json") == true,
               let pretty = Self.prettyJSON(data) {
                try write(Data((pretty + "\n").utf8))
            } else if formatsBodies, isTerminal, data.contains(0) {
                try write(Data("[binary body: \(data.count) bytes]\n".utf8))
            } else {
                try write(data)
                if formatsBodies { try write(Data("\n".utf8)) }
            }
        } else if body, request.httpBodyStream != nil {
            text += (head ? "\n" : "") + "[streamed body: multipart form]\n"
        }
        if head || !text.isEmpty { try write(Data((text + (head ? "\n" : "")).utf8)) }
    }

    /// Prints the status line, with the header fields when `headerFields`.
    /// - Throws: ``CLIFailure`` when standard output cannot be written.
    func printHead(_ response: HTTPURLResponse, httpVersion: String?, headerFields: Bool) throws(CLIFailure) {
        let head = VerboseTrace.responseHead(response, version: httpVersion)
        let colours = colours
        var text = (colours ? TerminalColors.statusLine(head[0], statusCode: response.statusCode) : head[0]) + "\n"
        if headerFields {
            for line in head.dropFirst() { text += (colours ? TerminalColors.headerLine(line) : line) + "\n" }
        }
        try write(Data(text.utf8))
    }

    /// Prints `body` (after a blank line when `separated` from a head printed before it; none for an empty body)
    /// and returns its length. An event stream printed event by event records in `eventStream` where it stands, also
    /// when its connection fails, for ``EventStreamPosition/reconnection(of:after:)``.
    func printBody(
        _ body: ResponseBodyStream, contentType: String?, separated: Bool, eventStream: inout EventStreamPosition
    ) async throws -> Int64 {
        // The charset comes from the response's own field unless --response-charset says otherwise, also when
        // --response-mime replaces the media type.
        let charset = charsetOverride ?? contentType.flatMap(MediaType.init(parsing:))?.charset
        let contentType = mediaTypeOverride ?? contentType
        eventStream.isEventStream = streamsLines && formatsBodies && Self.isEventStream(contentType)
        var chunks = body.makeAsyncIterator()
        guard let first = try await chunks.next() else { return 0 }
        if separated { try write(Data("\n".utf8)) }
        var count = Int64(first.count)
        if eventStream.isEventStream {
            // Each event goes out as soon as its blank line arrives, its data formatted when it is JSON.
            var parser = ServerSentEventParser(lastEventID: eventStream.lastEventID, limit: StreamedLines.maximumLineLength)
            var chunk: Data? = first
            while let arrived = chunk {
                let events = try parser.events(in: arrived)
                for event in events { try printEvent(event) }
                eventStream.advance(events: events.count, lastEventID: parser.lastEventID, reconnectionTime: parser.reconnectionTime)
                chunk = try await chunks.next()
                count += Int64(chunk?.count ?? 0)
            }
            return count
        }
        if streamsLines, formatsBodies {
            // Each complete line goes out as soon as its newline arrives; a line that is JSON is formatted. Each chunk
            // is searched once (StreamedLines), and a line past its limit goes out unformatted as it arrives.
            var lines = StreamedLines()
            var chunk: Data? = first
            while let arrived = chunk {
                try printPieces(lines.append(arrived))
                chunk = try await chunks.next()
                count += Int64(chunk?.count ?? 0)
            }
            try printPieces(lines.finish())
            return count
        }
        if formatsBodies, contentType?.lowercased().contains("json") == true {
            var held = first
            while held.count <= Self.prettyPrintLimit, let chunk = try await chunks.next() {
                held.append(chunk)
                count += Int64(chunk.count)
            }
            if held.count <= Self.prettyPrintLimit, let pretty = Self.prettyJSON(held) {
                try write(Data(((colours ? TerminalColors.json(pretty) : pretty) + "\n").utf8))
                return count
            }
            try write(held)
        } else if formatsBodies, let charset, let encoding = CharsetDecoding.encoding(forCharset: charset),
                  !TerminalEncoding.showsAsIs(encoding, on: displayEncoding) {
            // Text in another charset than the terminal's is held (up to prettyPrintLimit) and decoded whole: a
            // character may span two chunks, and in UTF-16 one chunk may end inside a surrogate pair. A longer body, or
            // one that is not valid text in its charset, goes out as received.
            var held = first
            while held.count <= Self.prettyPrintLimit, let chunk = try await chunks.next() {
                held.append(chunk)
                count += Int64(chunk.count)
            }
            if held.count <= Self.prettyPrintLimit {
                if let text = try? CharsetDecoding.decoding(held, charset: charset) {
                    try write(text.data(using: displayEncoding, allowLossyConversion: true) ?? Data(text.utf8))
                    return count
                }
                StandardStreams.writeError("courier: the body is not valid \(charset) text; it is shown as received\n")
            }
            try write(held)
        } else if formatsBodies, isTerminal, first.contains(0) {
            while let chunk = try await chunks.next() { count += Int64(chunk.count) }
            try write(Data("[binary body: \(count) bytes]\n".utf8))
            return count
        } else {
            try write(first)
        }
        while let chunk = try await chunks.next() {
            try write(chunk)
            count += Int64(chunk.count)
        }
        return count
    }

    /// The pieces of a streamed body: each whole line through ``printLine(_:)``, the bytes of an overlong line as they are.
    private func printPieces(_ pieces: [StreamedLines.Piece]) throws(CLIFailure) {
        for piece in pieces {
            switch piece {
            case .line(let line): try printLine(line)
            case .unformatted(let bytes): try write(bytes)
            }
        }
    }

    /// One line of a streamed body: formatted (and coloured) when it is a JSON document, else as received.
    private func printLine(_ line: Data) throws(CLIFailure) {
        if line.first == UInt8(ascii: "{") || line.first == UInt8(ascii: "["), let pretty = Self.prettyJSON(Data(line)) {
            try write(Data(((colours ? TerminalColors.json(pretty) : pretty) + "\n").utf8))
        } else {
            var ended = Data(capacity: line.count + 1)
            ended.append(line)
            ended.append(UInt8(ascii: "\n"))
            try write(ended)
        }
    }

    /// Whether `contentType` is `text/event-stream`.
    static func isEventStream(_ contentType: String?) -> Bool {
        contentType.flatMap(MediaType.init(parsing:))?.isEventStream == true
    }

    /// One event of an event stream: a line with its type, id and retry (as the stream's fields name them), then its
    /// data (formatted when it is a JSON document), then a blank line.
    private func printEvent(_ event: ServerSentEvent) throws(CLIFailure) {
        var fields = ["event: \(event.event)"]
        if let id = event.id { fields.append("id: \(id)") }
        if let retry = event.retry { fields.append("retry: \(retry)") }
        let header = fields.joined(separator: "  ")
        var text = (colours ? TerminalColors.headerLine(header) : header) + "\n"
        if let pretty = Self.prettyJSON(Data(event.data.utf8)), event.data.first == "{" || event.data.first == "[" {
            text += (colours ? TerminalColors.json(pretty) : pretty) + "\n"
        } else {
            text += event.data + "\n"
        }
        try write(Data((text + "\n").utf8))
    }

    /// `body` pretty-printed with sorted keys, or `nil` when it is not JSON.
    static func prettyJSON(_ body: Data) -> String? {
        guard let object = try? JSONSerialization.jsonObject(with: body, options: [.fragmentsAllowed]),
              let pretty = try? JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys, .fragmentsAllowed, .withoutEscapingSlashes])
        else { return nil }
        return String(data: pretty, encoding: .utf8)
    }

    /// Writes `data` to standard output (see ``StandardStreams``).
    private func write(_ data: Data) throws(CLIFailure) {
        try StandardStreams.write(data, to: .output)
    }
}
