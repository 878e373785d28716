import Courier
import Foundation
import Synchronization
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Event streams and JSON lines against sse-starlette under uvicorn (scripts/sse-test-server, the app in
/// scripts/sse_test_app.py): its encoding of multi-line events, comments, `retry:` and empty ids with each line end;
/// a dropped connection resumed with `Last-Event-ID` and a 204 that ends it; 100,000 events without memory growth;
/// a line that never ends; JSON lines with CRLF, a blank line and no final line end; cancellation.
@Suite(
    "Event streams and JSON lines (sse-starlette)",
    .enabled(ExternalServers.sse.skipMessage) { await ExternalServers.sse.isRunning() },
    .timeLimit(.minutes(2))
)
struct EventStreamInteropTests {
    private func url(_ path: String) throws -> URL {
        let base = try #require(ExternalServers.sse.variables["COURIER_SSE_URL"])
        return try #require(URL(string: base + path))
    }

    private func collect(_ events: AsyncThrowingStream<ServerSentEvent, any Error>) async throws -> [ServerSentEvent] {
        var all: [ServerSentEvent] = []
        for try await event in events { all.append(event) }
        return all
    }

    @Test("multi-line events, comments, retry and an empty id, with LF, CRLF and CR line ends", arguments: ["lf", "crlf", "cr"])
    func multiline(separator: String) async throws {
        let session = URLSessionManager()
        let events = try await collect(session.events(
            for: URLRequest(url: try url("/multiline?sep=\(separator)")), configuration: EventStreamConfiguration(reconnects: false)))
        #expect(events == [
            ServerSentEvent(event: "greeting", data: "line one\nline two", id: "1"),
            ServerSentEvent(data: "plain", id: "1", retry: 1500),
            ServerSentEvent(data: "after an empty id", id: ""),
        ])
    }

    @Test("a dropped connection is resumed with Last-Event-ID after the server's retry; a 204 ends the stream")
    func resumesWithLastEventID() async throws {
        let session = URLSessionManager()
        let stream = UUID().uuidString
        let started = ContinuousClock.now
        let events = try await collect(session.events(for: URLRequest(url: try url("/resume?stream=\(stream)"))))
        #expect(events.map(\.id) == ["1", "2", "3", "4", "5", "6"])
        #expect(events.allSatisfy { $0.event == "tick" && $0.retry == 100 })
        #expect(events.last?.data == #"{"n": 6}"#)
        // The server's retry (100 ms) replaced the 3 s default: two reconnections in well under 3 s.
        #expect(ContinuousClock.now - started < .seconds(3))
        let (seen, _) = try await session.data(for: URLRequest(url: try url("/seen?stream=\(stream)")))
        #expect(String(decoding: seen, as: UTF8.self) == #"[null,"3","6"]"#)
    }

    @Test("100,000 events stream through without memory growth")
    func manyEvents() async throws {
        let session = URLSessionManager()
        var count = 0
        var residentAt10k = 0
        var last: String?
        for try await event in session.events(for: URLRequest(url: try url("/many?count=100000")), configuration: EventStreamConfiguration(reconnects: false)) {
            count += 1
            last = event.id
            if count == 10_000 { residentAt10k = Self.residentBytes() }
        }
        #expect(count == 100_000)
        #expect(last == "99999")
        let growth = Self.residentBytes() - residentAt10k
        #expect(growth < 16 << 20, "resident memory grew \(growth >> 20) MiB over 90,000 events")
    }

    @Test("a line that never ends is cut off at the limit with a typed error")
    func lineWithoutEnd() async throws {
        let session = URLSessionManager()
        let started = ContinuousClock.now
        await #expect(throws: StreamingResponseError.lineTooLong(limit: 1 << 20)) {
            _ = try await collect(session.events(for: URLRequest(url: try url("/no-line-end"))))
        }
        #expect(ContinuousClock.now - started < .seconds(30))
    }

    @Test("a response that is not an event stream fails without reconnecting")
    func notAnEventStream() async throws {
        let session = URLSessionManager()
        await #expect(throws: StreamingResponseError.notAnEventStream(status: 200, contentType: "application/json")) {
            _ = try await collect(session.events(for: URLRequest(url: try url("/seen"))))
        }
    }

    @Test("cancelling the iterating task ends the stream at once, in the middle of a response that does not end")
    func cancellation() async throws {
        let session = URLSessionManager()
        let request = URLRequest(url: try url("/many?count=100000000"))
        let received = Atomic<Int>(0)
        let consumer = Task {
            for try await _ in session.events(for: request) { received.add(1, ordering: .relaxed) }
        }
        #expect(await eventually(timeout: .seconds(20)) { received.load(ordering: .relaxed) >= 100 })
        let cancelled = ContinuousClock.now
        consumer.cancel()
        _ = try? await consumer.value
        #expect(ContinuousClock.now - cancelled < .seconds(2))
        // Nothing more arrives once the consumer has gone.
        let after = received.load(ordering: .relaxed)
        #expect(await throughout(.milliseconds(200)) { received.load(ordering: .relaxed) == after })
    }

    @Test("courier get --stream prints each event as it arrives: its type, id and retry, then its data, JSON formatted")
    func courierStreamPrintsEvents() async throws {
        let outcome = try await ChildProcess.run("courier", ["get", "--stream", "--pretty", "format", try url("/multiline?sep=cr").absoluteString])
        #expect(outcome.status == 0, "\(outcome.standardError)")
        #expect(outcome.standardOutput == """
            event: greeting  id: 1
            line one
            line two

            event: message  id: 1  retry: 1500
            plain

            event: message  id: \("")
            after an empty id


            """)
    }

    @Test("courier get --stream opens a dropped event stream again with Last-Event-ID and ends with the server's clean end")
    func courierStreamReconnects() async throws {
        let stream = UUID().uuidString
        let resumed = try await ChildProcess.run("courier", ["get", "--stream", "--pretty", "format", try url("/resume?stream=\(stream)").absoluteString])
        #expect(resumed.status == 0, "\(resumed.standardError)")
        let ids = resumed.standardOutput.split(separator: "\n").filter { $0.hasPrefix("event: tick") }
        #expect(ids.map(String.init) == (1...6).map { "event: tick  id: \($0)  retry: 100" }, "\(resumed.standardOutput)")
        // The server's retry (100 ms) is the wait, and the stream continued after event 3.
        #expect(resumed.standardError.contains("reconnecting in 0.1 s with Last-Event-ID: 3"), "\(resumed.standardError)")
        // The server saw the first request without Last-Event-ID, the second with 3, and no third: a clean end ends it.
        let (seen, _) = try await URLSessionManager().data(for: URLRequest(url: try url("/seen?stream=\(stream)")))
        #expect(String(decoding: seen, as: UTF8.self) == #"[null,"3"]"#)

        // Raw bytes in a pipe are not reconnected (what was written could end inside an event): a network failure.
        let raw = try await ChildProcess.run("courier", ["get", "--stream", try url("/resume?stream=\(UUID().uuidString)").absoluteString])
        #expect(raw.standardOutput.contains(#"data: {"n": 3}"#) && !raw.standardOutput.contains(#"{"n": 4}"#), "\(raw.standardOutput)")
        #expect(raw.status == 4, "\(raw.standardError)")
    }

    struct Line: Decodable, Equatable {
        let n: Int
        let text: String
    }

    @Test("JSON lines with LF or CRLF, a blank line and no final line end, each decoded as it arrives", arguments: ["0", "1"])
    func jsonLines(crlf: String) async throws {
        let session = URLSessionManager()
        var lines: [Line] = []
        for try await line in session.jsonLines(of: Line.self, for: URLRequest(url: try url("/ndjson?count=7&crlf=\(crlf)"))) {
            lines.append(line)
        }
        #expect(lines == (0..<7).map { Line(n: $0, text: "line \($0) é") })
    }

    @Test("a line that is not the type asked for is a typed error naming it")
    func undecodableLine() async throws {
        let session = URLSessionManager()
        do {
            for try await _ in session.jsonLines(of: Line.self, for: URLRequest(url: try url("/seen"))) {}
            Issue.record("no error")
        } catch let error as StreamingResponseError {
            guard case .undecodableLine(let line, _) = error else { Issue.record("\(error)"); return }
            #expect(line == 1)
        }
    }

    /// This process's resident memory (`VmRSS`), in bytes.
    private static func residentBytes() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
              let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "")
        else { return 0 }
        return kilobytes * 1024
    }
}
