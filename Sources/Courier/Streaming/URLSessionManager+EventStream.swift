import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// How ``URLSessionManager/events(for:configuration:)`` reads and reconnects an event stream. Every property has the
/// default listed on it.
public struct EventStreamConfiguration: Sendable {
    /// Whether a stream that ends, or a connection that fails, is opened again (as the standard's `EventSource`
    /// does), with `Last-Event-ID` when an event had an id. Default `true`. A response other than 200 with
    /// `text/event-stream` ends the sequence with ``StreamingResponseError/notAnEventStream(status:contentType:)``
    /// instead, and a 204 ends it normally: the standard's way for a server to say "do not reconnect".
    public var reconnects: Bool
    /// The wait before reconnecting, until a `retry:` field sets another. Default 3 s.
    public var reconnectionDelay: Duration
    /// The most connections in a row that fail (an error before any event arrived) before the sequence throws the
    /// last error. Default `nil`: no limit, as `EventSource`.
    public var maximumFailedReconnections: Int?
    /// The most bytes of one line, or of one event's data. Default 1 MiB: a server that never ends a line ends the
    /// sequence with ``StreamingResponseError/lineTooLong(limit:)`` there.
    public var maximumEventSize: Int

    /// A configuration; every parameter defaults to the value listed on its property.
    public init(
        reconnects: Bool = true, reconnectionDelay: Duration = .seconds(3), maximumFailedReconnections: Int? = nil,
        maximumEventSize: Int = 1 << 20
    ) {
        self.reconnects = reconnects
        self.reconnectionDelay = reconnectionDelay
        self.maximumFailedReconnections = maximumFailedReconnections
        self.maximumEventSize = max(1, maximumEventSize)
    }
}

extension URLSessionManager {
    /// The Server-Sent Events of `request`'s response, as they arrive, parsed by the WHATWG HTML standard's
    /// event-stream rules (UTF-8 with or without a byte order mark; CR, LF or CRLF line ends; multi-line `data`;
    /// comments; `retry:` of digits only; an event dispatched at a blank line, and a last one the stream ended
    /// without a blank line after dropped).
    ///
    /// Each connection is an exchange of ``bytes(for:body:interceptors:)``: the session's pipeline (authentication,
    /// cookies, retries, interceptors, tracing) applies to it, and its body is read with backpressure. The request
    /// gets `Accept: text/event-stream` and `Cache-Control: no-cache` unless it carries its own. When the stream ends
    /// or its connection fails, it is opened again after the reconnection delay, with `Last-Event-ID` set to the last
    /// event ID (``EventStreamConfiguration``). Cancelling the task that iterates, or dropping the sequence, closes
    /// the connection.
    public func events(
        for request: URLRequest, configuration: EventStreamConfiguration = EventStreamConfiguration()
    ) -> AsyncThrowingStream<ServerSentEvent, any Error> {
        let (events, continuation) = AsyncThrowingStream<ServerSentEvent, any Error>.makeStream()
        let reader = Task { [self] in
            do {
                try await readEvents(of: request, configuration: configuration) { continuation.yield($0) }
                continuation.finish()
            } catch {
                continuation.finish(throwing: Task.isCancelled ? nil : error)
            }
        }
        continuation.onTermination = { _ in reader.cancel() }
        return events
    }

    /// Reads the stream, reconnecting as `configuration` says, until it ends for good.
    private func readEvents(
        of request: URLRequest, configuration: EventStreamConfiguration, deliver: (ServerSentEvent) -> Void
    ) async throws {
        var lastEventID: String?
        var delay = configuration.reconnectionDelay
        var failures = 0
        while true {
            try Task.checkCancellation()
            var attempt = request
            if attempt.value(forHTTPHeaderField: "Accept") == nil { attempt.setValue("text/event-stream", forHTTPHeaderField: "Accept") }
            if attempt.value(forHTTPHeaderField: "Cache-Control") == nil { attempt.setValue("no-cache", forHTTPHeaderField: "Cache-Control") }
            if let lastEventID, !lastEventID.isEmpty { attempt.setValue(lastEventID, forHTTPHeaderField: "Last-Event-ID") }
            var delivered = false
            do {
                let (response, body) = try await bytes(for: attempt)
                if response.statusCode == 204 { return }
                let contentType = response.value(forHTTPHeaderField: "Content-Type")
                guard response.statusCode == 200, contentType.flatMap(MediaType.init(parsing:))?.isEventStream == true else {
                    throw StreamingResponseError.notAnEventStream(status: response.statusCode, contentType: contentType)
                }
                var parser = ServerSentEventParser(lastEventID: lastEventID, limit: configuration.maximumEventSize)
                for try await chunk in body {
                    for event in try parser.events(in: chunk) {
                        deliver(event)
                        delivered = true
                    }
                    lastEventID = parser.lastEventID
                    if let milliseconds = parser.reconnectionTime { delay = .milliseconds(milliseconds) }
                }
                failures = 0
            } catch let error as StreamingResponseError {
                throw error
            } catch {
                // A connection that failed: reconnected, unless too many in a row brought nothing.
                if Task.isCancelled { throw CancellationError() }
                failures = delivered ? 0 : failures + 1
                guard configuration.reconnects, failures <= (configuration.maximumFailedReconnections ?? .max) else { throw error }
            }
            guard configuration.reconnects else { return }
            try await Task.sleep(for: delay)
        }
    }
}
