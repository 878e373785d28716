import Foundation
import Synchronization
import Testing
@testable import Courier
import CourierTestServer
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The exchange's sinks as the façades use them: the body decision, the memory sink readable while it fills and
/// after a cancel, continued memory, and output streams their owner keeps open.
@Suite("Exchange sinks: body decision, memory while receiving, continued memory, owned output streams")
struct SinkDeliveryTests {
    @Test("with no decision the body goes to the sink; every chunk is reported as the sink takes it")
    func receiveIsTheDefault() async throws {
        let chunks = Mutex<[Int]>([])
        let result = try await Fixtures.exchange("/stream-bytes/50000?seed=4&chunk_size=5000") {
            $0.handlers.didReceiveData = { chunk in chunks.withLock { $0.append(chunk.count) } }
        }
        let reference = try await Fixtures.exchange("/stream-bytes/50000?seed=4&chunk_size=5000")
        #expect(result.data == reference.data)
        #expect(result.body == nil)
        #expect(chunks.withLock { $0.reduce(0, +) } == 50_000)
        #expect(chunks.withLock { $0.count } > 1)
    }

    @Test("the decision sees the head and the resumption outcome; .handOver returns the body unread")
    func handOverStreamsTheBody() async throws {
        let seen = Mutex<(status: Int, outcome: ResumptionOutcome?)?>(nil)
        let reported = Mutex(0)
        let result = try await Fixtures.exchange("/bytes/40000?seed=2") {
            $0.handlers.bodyDecision = { head, outcome in
                seen.withLock { $0 = (head.statusCode, outcome) }
                return .handOver
            }
            $0.handlers.didReceiveData = { chunk in reported.withLock { $0 += chunk.count } }
        }
        #expect(seen.withLock { $0?.status } == 200)
        #expect(seen.withLock { $0?.outcome } == nil)
        #expect(result.data == nil)
        let body = try await #require(result.body).collect()
        #expect(body == (try await Fixtures.exchange("/bytes/40000?seed=2")).data)
        #expect(reported.withLock { $0 } == 0, "the caller reads a handed-over body; the sink hook sees none of it")
    }

    @Test(".refuse fails the exchange with the decision's own error and leaves it cancelled")
    func refuseFailsWithTheGivenError() async throws {
        struct NotWanted: Error, Equatable {}
        let exchange = Exchange(request: URLRequest(url: try await Fixtures.url("/bytes/100000")), configuration: {
            var configuration = ExchangeConfiguration(transport: Fixtures.transport)
            configuration.handlers.bodyDecision = { _, _ in .refuse(NotWanted()) }
            return configuration
        }())
        await #expect(throws: NotWanted.self) { _ = try await exchange.result() }
        #expect(exchange.phase == .cancelled)
        #expect(exchange.receivedData == nil)
    }

    @Test("a memory sink's bytes are readable while they arrive and stay readable after a cancel")
    func memoryIsReadableWhileReceivingAndAfterCancel() async throws {
        let exchange = Exchange(
            request: URLRequest(url: try await Fixtures.url("/drip?numbytes=20&duration=4&delay=0")),
            configuration: ExchangeConfiguration(transport: Fixtures.transport)
        )
        exchange.start()
        _ = await eventually { (exchange.receivedData?.count ?? 0) >= 3 }
        let partial = try #require(exchange.receivedData)
        #expect(partial.count >= 3 && partial.count < 20)
        exchange.cancel()
        await #expect { _ = try await exchange.result() } throws: { ($0 as? URLError)?.code == .cancelled }
        let kept = try #require(exchange.receivedData)
        #expect(kept.count >= partial.count && kept.count < 20)
        #expect(kept.allSatisfy { $0 == UInt8(ascii: "*") })
    }

    @Test("continued memory: a 206 that fits follows the kept bytes; a changed resource replaces them")
    func memoryContinuing() async throws {
        let size = 200_000
        let first = try await Fixtures.exchange("/range/\(size)")
        let kept = try #require(first.data).prefix(70_001)
        let resumption = DownloadResumption(offset: Int64(kept.count), response: first.response)

        let continued = try await Fixtures.exchange("/range/\(size)") {
            $0.sink = .memoryContinuing(Data(kept))
            $0.resumption = resumption
        }
        #expect(continued.response.statusCode == 206)
        #expect(continued.resumption == .continued(from: 70_001))
        #expect(continued.bytesReceived == Int64(size - 70_001))
        #expect(continued.data == TestPayload.rangeContent(count: size))

        let restarted = try await Fixtures.exchange("/range/\(size)?etag=other") {
            $0.sink = .memoryContinuing(Data(repeating: 0x21, count: kept.count))
            $0.resumption = resumption
        }
        #expect(restarted.resumption == .restarted)
        #expect(restarted.data == TestPayload.rangeContent(count: size))

        let complete = try await Fixtures.exchange("/range/\(size)") {
            $0.sink = .memoryContinuing(TestPayload.rangeContent(count: size))
            $0.resumption = DownloadResumption(offset: Int64(size), response: first.response)
        }
        #expect(complete.resumption == .alreadyComplete)
        #expect(complete.data == TestPayload.rangeContent(count: size))
    }

    @Test("an output stream its owner closes stays open across exchanges, which continue after its bytes")
    func ownedOutputStreamStaysOpen() async throws {
        let file = Fixtures.temporaryFile()
        defer { try? FileManager.default.removeItem(at: file) }
        let target = OutputStreamTarget(try #require(OutputStream(url: file, append: false)), closedByOwner: true)
        _ = try await Fixtures.exchange("/bytes/3000?seed=1") { $0.sink = .outputStream(target) }
        #expect(target.isOpen)
        #expect(target.bytesWritten == 3000)
        _ = try await Fixtures.exchange("/bytes/2000?seed=2") { $0.sink = .outputStream(target) }
        #expect(target.bytesWritten == 5000)
        target.close()
        let first = try #require(try await Fixtures.exchange("/bytes/3000?seed=1").data)
        let second = try #require(try await Fixtures.exchange("/bytes/2000?seed=2").data)
        #expect(try Data(contentsOf: file) == first + second)

        let own = OutputStreamTarget(try #require(OutputStream(url: file, append: false)))
        _ = try await Fixtures.exchange("/bytes/10?seed=1") { $0.sink = .outputStream(own) }
        await #expect(throws: URLError.self) {
            _ = try await Fixtures.exchange("/bytes/10?seed=1") { $0.sink = .outputStream(own) }
        }
    }
}
