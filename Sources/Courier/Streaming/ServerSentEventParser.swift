/// The event-stream interpretation of the WHATWG HTML standard ("Parsing an event stream" and "Interpreting an event
/// stream"): bytes in, dispatched events out. One parser reads one connection's body; the last event ID and the
/// reconnection time it learned outlive it (its caller hands them to the next connection's parser).
///
/// Hand-written: no maintained Swift package parses the format on the engine's byte chunks (EventSource-style clients
/// bring their own transport), and the rules are a page long. (Package-wide: `courier --stream` prints the events of an
/// event-stream response with it.)
package struct ServerSentEventParser {
    private var splitter: LineSplitter
    /// The first bytes of the stream, held until it is known whether they are a byte order mark (U+FEFF), which the
    /// standard drops once at the start.
    private var head: [UInt8]? = []
    private var eventType = ""
    private var data = ""
    private var retryOfEvent: Int?
    /// The last event ID buffer: kept across events and, by the caller, across connections.
    package private(set) var lastEventID: String?
    /// The reconnection time the latest all-digit `retry:` field set, in milliseconds.
    package private(set) var reconnectionTime: Int?

    /// A parser for a stream whose last event ID so far is `lastEventID`, holding at most `limit` bytes of a line or
    /// of an event's data.
    package init(lastEventID: String? = nil, limit: Int) {
        splitter = LineSplitter(limit: limit)
        self.lastEventID = lastEventID
    }

    /// The events `chunk` completes, in order.
    /// - Throws: ``StreamingResponseError/lineTooLong(limit:)`` for a line or an event's data past the limit.
    package mutating func events<Bytes: Collection<UInt8>>(in chunk: Bytes) throws(StreamingResponseError) -> [ServerSentEvent] {
        guard var held = head else { return try interpret(try splitter.lines(in: chunk)) }
        // The stream's first bytes: held until three have come, since until then they might still be a BOM.
        held += chunk
        let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
        if held.count < 3, held == Array(bom.prefix(held.count)) {
            head = held
            return []
        }
        head = nil
        return try interpret(try splitter.lines(in: held.starts(with: bom) ? held.dropFirst(3) : held[...]))
    }

    /// The events `lines` complete, in order.
    private mutating func interpret(_ lines: [[UInt8]]) throws(StreamingResponseError) -> [ServerSentEvent] {
        var dispatched: [ServerSentEvent] = []
        for line in lines {
            if let event = try process(String(decoding: line, as: UTF8.self)) { dispatched.append(event) }
        }
        return dispatched
    }

    /// One line: a blank line dispatches; a comment is ignored; a field updates the buffers.
    private mutating func process(_ line: String) throws(StreamingResponseError) -> ServerSentEvent? {
        if line.isEmpty { return dispatch() }
        if line.hasPrefix(":") { return nil }
        let field: Substring
        var value: Substring
        if let colon = line.firstIndex(of: ":") {
            field = line[..<colon]
            value = line[line.index(after: colon)...]
            if value.hasPrefix(" ") { value = value.dropFirst() }
        } else {
            field = line[...]
            value = ""
        }
        switch field {
        case "event":
            eventType = String(value)
        case "data":
            guard data.utf8.count + value.utf8.count < splitter.limit else { throw .lineTooLong(limit: splitter.limit) }
            data += value
            data += "\n"
        case "id" where !value.contains("\u{0}"):
            lastEventID = String(value)
        case "retry" where !value.isEmpty && value.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }):
            // Digits only; a value too large for an Int is the longest delay there is.
            let milliseconds = Int(value) ?? .max
            reconnectionTime = milliseconds
            retryOfEvent = milliseconds
        default:
            break   // an unknown field, an `id` with NUL, a `retry` that is not all digits: ignored
        }
        return nil
    }

    private mutating func dispatch() -> ServerSentEvent? {
        defer {
            data = ""
            eventType = ""
            retryOfEvent = nil
        }
        guard !data.isEmpty else { return nil }
        data.removeLast()   // the line feed after the last data line
        return ServerSentEvent(event: eventType.isEmpty ? "message" : eventType, data: data, id: lastEventID, retry: retryOfEvent)
    }
}
