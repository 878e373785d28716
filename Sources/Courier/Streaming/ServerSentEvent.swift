import Foundation

/// One event of a `text/event-stream` response (Server-Sent Events), as the WHATWG HTML standard's event-stream
/// rules dispatch it.
public struct ServerSentEvent: Sendable, Hashable {
    /// The event's type: its `event:` field, or "message" when it had none.
    public var event: String
    /// Its `data:` lines, joined with "\n".
    public var data: String
    /// The last event ID when it was dispatched: the latest `id:` field of the stream so far (of this event or an
    /// earlier one; "" after an empty `id:`), or `nil` before any. A reconnection sends it as `Last-Event-ID`.
    public var id: String?
    /// The reconnection delay an all-digit `retry:` field of this event set, in milliseconds; `nil` when it set none.
    public var retry: Int?

    /// An event; every field as its property says.
    public init(event: String = "message", data: String, id: String? = nil, retry: Int? = nil) {
        self.event = event
        self.data = data
        self.id = id
        self.retry = retry
    }
}

/// Why an event stream or a JSON-lines stream was given up.
public enum StreamingResponseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A line (or an event's data) grew past `limit` bytes without ending: a server that never sends a line end is
    /// cut off here instead of filling memory.
    case lineTooLong(limit: Int)
    /// The response is not an event stream: its status is not 200, or its `Content-Type` is not `text/event-stream`
    /// (the standard fails the connection for good: no reconnection).
    case notAnEventStream(status: Int, contentType: String?)
    /// Line `line` of a JSON-lines body is not a JSON value of the type asked for.
    case undecodableLine(line: Int, reason: String)

    /// The error in a sentence.
    public var description: String {
        switch self {
        case .lineTooLong(let limit):
            "A line of the stream grew past \(limit) bytes without ending."
        case .notAnEventStream(let status, let contentType):
            "The response is not an event stream (status \(status), Content-Type \(contentType ?? "none"))."
        case .undecodableLine(let line, let reason):
            "Line \(line) of the JSON-lines body cannot be decoded: \(reason)"
        }
    }
}
