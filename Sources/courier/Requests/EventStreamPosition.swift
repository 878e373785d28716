import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Where an event stream printed with `--stream` stands, and the one rule for going on when its connection is lost.
///
/// The standard's `EventSource` opens a lost stream again after the server's `retry:` delay, sending the last event ID
/// as `Last-Event-ID` so that the server can continue where the client stopped; `courier` does the same for a
/// connection that fails mid-stream (the request goes through the same options, redirects, cookies and `--retry`). A
/// stream the server ends cleanly ends the command, as it would with curl or HTTPie: a command line asked for one
/// response, and an endless reconnect loop would never let a script continue. Only a stream printed event by event
/// (on a terminal or with `--pretty`) is reconnected: raw bytes already written could end inside an event.
struct EventStreamPosition {
    /// The most connections in a row that fail before an event arrives; the next failure ends the command.
    static let maximumFailedConnections = 5

    /// Whether the response printed last was an event stream read event by event.
    var isEventStream = false
    /// The stream's last event ID so far (`nil` before any, `""` after an empty `id:`).
    var lastEventID: String?
    /// The wait before a reconnection: 3 s (the library's default) until a `retry:` field sets another.
    var reconnectionDelay: Duration = .seconds(3)
    /// Events printed on the current connection.
    var eventsOnThisConnection = 0
    /// Connections in a row that failed before an event arrived.
    private(set) var failedConnections = 0

    /// Takes in what the parser learned from a chunk: its events, its last event ID and reconnection time.
    mutating func advance(events: Int, lastEventID: String?, reconnectionTime milliseconds: Int?) {
        eventsOnThisConnection += events
        self.lastEventID = lastEventID
        if let milliseconds { reconnectionDelay = .milliseconds(milliseconds) }
    }

    /// `request` to send again after a connection of the stream failed with `error`, with `Last-Event-ID` set, or
    /// `nil` when the stream is not reconnected: the response was not an event stream, the connection before did not
    /// get to one, or too many connections in a row failed before an event arrived.
    mutating func reconnection(of request: URLRequest, after error: any Error) -> URLRequest? {
        guard isEventStream, !(error is CancellationError), !(error is StreamingResponseError) else { return nil }
        failedConnections = eventsOnThisConnection > 0 ? 0 : failedConnections + 1
        guard failedConnections <= Self.maximumFailedConnections else { return nil }
        eventsOnThisConnection = 0
        var next = request
        if let lastEventID, !lastEventID.isEmpty { next.setValue(lastEventID, forHTTPHeaderField: "Last-Event-ID") }
        return next
    }
}
