import Foundation
import Testing
@testable import Courier
import CourierTestServer
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The engine transport's response body as its one reader sees it (`StreamingResponseDelegate`'s own buffer): what a
/// dropped body and a cancelled reader do to the request, and that the parts arrive whole and in order.
@Suite("Transport: the response body's reader")
struct ResponseBodyReaderTests {
    /// One connection per host, so that a request still holding it makes the next one wait.
    static func singleConnectionTransport() -> EngineTransport {
        var configuration = EngineTransport.Configuration()
        configuration.maximumConnectionsPerHost = 1
        // A request left waiting for the connection fails the test in seconds rather than in five minutes.
        configuration.connectionWaitTimeout = 10
        return EngineTransport(configuration: configuration)
    }

    @Test func droppingABodyUnreadCancelsItsRequestAndFreesTheConnection() async throws {
        let transport = Self.singleConnectionTransport()
        defer { Task { try? await transport.shutdown() } }
        // Fifty bytes over five seconds: the only connection is busy with it until the request is cancelled.
        let slow = try await Fixtures.url("/drip?duration=5&numbytes=50&delay=0")
        do {
            let response = try await transport.send(TransportRequest(url: slow))
            #expect(response.head.statusCode == 200)
        }
        let started = ContinuousClock.now
        let next = try await transport.send(TransportRequest(url: try await Fixtures.url("/get")))
        _ = try await next.body.collect()
        #expect(ContinuousClock.now - started < .seconds(3), "the dropped body's request still held the connection")
    }

    @Test func cancellingTheReadingTaskEndsTheReadAtOnce() async throws {
        let transport = Self.singleConnectionTransport()
        defer { Task { try? await transport.shutdown() } }
        let response = try await transport.send(TransportRequest(url: try await Fixtures.url("/drip?duration=10&numbytes=10&delay=0")))
        let (firstPart, firstPartArrived) = AsyncStream.makeStream(of: Void.self)
        let reading = Task {
            var iterator = response.body.makeAsyncIterator()
            _ = try await iterator.next()
            firstPartArrived.yield()
            // The next part is a second away: the read waits, and the cancellation must end it.
            return try await iterator.next()
        }
        for await _ in firstPart { break }
        let cancelled = ContinuousClock.now
        reading.cancel()
        await #expect { _ = try await reading.value } throws: { ($0 as? URLError)?.code == .cancelled }
        #expect(ContinuousClock.now - cancelled < .milliseconds(900), "the read waited for the next part")
        // The request was cancelled with it: the only connection is free again.
        let next = try await transport.send(TransportRequest(url: try await Fixtures.url("/get")))
        #expect(next.head.statusCode == 200)
        _ = try await next.body.collect()
    }

    @Test func aBodyReadSlowlyArrivesWholeAndInOrder() async throws {
        // 4 MiB in many parts: with a reader that lags, the buffer fills, the engine stops reading and starts again.
        let count = 4 << 20
        let response = try await Fixtures.transport.send(TransportRequest(url: try await Fixtures.url("/bytes/\(count)?seed=7")))
        var received = Data()
        var parts = 0
        for try await part in response.body {
            received.append(part)
            parts += 1
            if parts % 16 == 0 { try await Task.sleep(for: .milliseconds(5)) }
        }
        #expect(parts > 1)
        #expect(received == TestPayload.bytes(count: count, seed: 7))
    }

    @Test func aReaderWaitingWhenTheWholeBodyAndItsEndArriveGetsTheBodyBeforeTheEnd() async throws {
        // The head comes first and the reader waits; then the body and its end come in one read. The reader is woken
        // after that read, with the end already in: it must get every byte, then the end.
        for length in [1, 100, 70_000] {
            let response = try await Fixtures.transport.send(TransportRequest(url: try await Fixtures.url("/slow-body/\(length)?delay=0.2")))
            var iterator = response.body.makeAsyncIterator()
            var received = Data()
            while let part = try await iterator.next() { received.append(part) }
            #expect(received == TestPayload.rangeContent(count: length), "length \(length)")
            #expect(try await iterator.next() == nil)
        }
    }
}
