@testable import Courier
import Testing

/// The event-stream rules of the WHATWG HTML standard as a table: each case's bytes, fed whole and split at every
/// byte (a line end, a BOM or a UTF-8 sequence cut between two chunks parses the same), give exactly its events.
@Suite("ServerSentEventParser")
struct ServerSentEventParserTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let stream: [UInt8]
        let events: [ServerSentEvent]
        var testDescription: String { name }

        init(_ name: String, _ text: String, _ events: [ServerSentEvent]) {
            self.name = name
            stream = Array(text.utf8)
            self.events = events
        }

        init(_ name: String, bytes: [UInt8], _ events: [ServerSentEvent]) {
            self.name = name
            stream = bytes
            self.events = events
        }
    }

    static let cases: [Case] = [
        Case("one event at a blank line", "data: hello\n\n", [ServerSentEvent(data: "hello")]),
        Case("multi-line data joined with LF", "data: one\ndata: two\ndata\n\n", [ServerSentEvent(data: "one\ntwo\n")]),
        Case("CRLF line ends", "event: a\r\ndata: x\r\n\r\n", [ServerSentEvent(event: "a", data: "x")]),
        Case("CR line ends", "event: a\rdata: x\r\rdata: y\r\r", [ServerSentEvent(event: "a", data: "x"), ServerSentEvent(data: "y")]),
        Case("a BOM at the start is dropped", bytes: [0xEF, 0xBB, 0xBF] + Array("data: x\n\n".utf8), [ServerSentEvent(data: "x")]),
        Case("a second BOM is part of the field name", bytes: [0xEF, 0xBB, 0xBF, 0xEF, 0xBB, 0xBF] + Array("data: x\n\ndata: y\n\n".utf8),
             [ServerSentEvent(data: "y")]),
        Case("comments are ignored", ": hello\ndata: x\n:another\n\n", [ServerSentEvent(data: "x")]),
        Case("only one leading space is removed", "data:  two spaces\ndata:none\n\n", [ServerSentEvent(data: " two spaces\nnone")]),
        Case("a field without a colon has an empty value", "data\ndata\n\n", [ServerSentEvent(data: "\n")]),
        Case("a blank line with no data dispatches nothing", "event: lonely\n\ndata: x\n\n", [ServerSentEvent(data: "x")]),
        Case("an event the stream ends without a blank line after is dropped", "data: kept\n\ndata: dropped\n", [ServerSentEvent(data: "kept")]),
        Case("an id is kept for later events", "id: 7\ndata: a\n\ndata: b\n\n", [ServerSentEvent(data: "a", id: "7"), ServerSentEvent(data: "b", id: "7")]),
        Case("an empty id sets the last event ID to empty", "id: 7\ndata: a\n\nid\ndata: b\n\n", [ServerSentEvent(data: "a", id: "7"), ServerSentEvent(data: "b", id: "")]),
        Case("an id with NUL is ignored", "id: 1\ndata: a\n\nid: 2\u{0}3\ndata: b\n\n", [ServerSentEvent(data: "a", id: "1"), ServerSentEvent(data: "b", id: "1")]),
        Case("an id set by an event without data still counts", "id: 9\n\ndata: a\n\n", [ServerSentEvent(data: "a", id: "9")]),
        Case("retry of digits sets the delay", "retry: 2500\ndata: a\n\n", [ServerSentEvent(data: "a", retry: 2500)]),
        Case("retry with anything but digits is ignored", "retry: 25s\nretry: -1\nretry: 1.5\nretry\ndata: a\n\n", [ServerSentEvent(data: "a")]),
        Case("unknown fields are ignored", "foo: bar\ndata: a\nDATA: b\n\n", [ServerSentEvent(data: "a")]),
        Case("the event type resets after each event", "event: x\ndata: a\n\ndata: b\n\n", [ServerSentEvent(event: "x", data: "a"), ServerSentEvent(data: "b")]),
        Case("invalid UTF-8 becomes U+FFFD", bytes: Array("data: ".utf8) + [0xFF, 0x41] + Array("\n\n".utf8), [ServerSentEvent(data: "\u{FFFD}A")]),
        Case("non-ASCII text", "data: 日本語 🚀 é\n\n", [ServerSentEvent(data: "日本語 🚀 é")]),
        Case("a colon in the value is kept", "data: a: b:c\n\n", [ServerSentEvent(data: "a: b:c")]),
    ]

    @Test("each case, whole and split at every byte", arguments: cases)
    func parses(_ example: Case) throws {
        var whole = ServerSentEventParser(limit: 1 << 20)
        #expect(try whole.events(in: example.stream) == example.events)
        for split in 0...example.stream.count {
            var parser = ServerSentEventParser(limit: 1 << 20)
            let events = try parser.events(in: example.stream[..<split]) + parser.events(in: example.stream[split...])
            #expect(events == example.events, "split at \(split)")
        }
        // One byte a chunk.
        var bytewise = ServerSentEventParser(limit: 1 << 20)
        var events: [ServerSentEvent] = []
        for byte in example.stream { events += try bytewise.events(in: [byte]) }
        #expect(events == example.events)
    }

    @Test("the reconnection time and last event ID outlive the event; a new parser starts from the given ID")
    func stateOutlivesEvents() throws {
        var parser = ServerSentEventParser(lastEventID: "41", limit: 1024)
        #expect(try parser.events(in: Array("data: a\n\nretry: 10\n\nid: 42\n\n".utf8)) == [ServerSentEvent(data: "a", id: "41")])
        #expect(parser.reconnectionTime == 10)
        #expect(parser.lastEventID == "42")
    }

    @Test("a line or an event's data past the limit is a typed error")
    func limits() throws {
        var line = ServerSentEventParser(limit: 16)
        #expect(throws: StreamingResponseError.lineTooLong(limit: 16)) { _ = try line.events(in: Array(("data: " + String(repeating: "x", count: 20)).utf8)) }
        var data = ServerSentEventParser(limit: 16)
        #expect(throws: StreamingResponseError.lineTooLong(limit: 16)) {
            _ = try data.events(in: Array(String(repeating: "data: xxxxxx\n", count: 3).utf8))
        }
    }
}
