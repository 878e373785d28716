import Synchronization
import Foundation
import Testing
@testable import Courier
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Exchange: sinks, pause, cancellation and memory", .serialized)
struct StreamingTests {
    @Test func oneGiBDownloadToAFileKeepsMemoryFlat() async throws {
        let size = 1 << 30
        let file = Fixtures.temporaryFile()
        defer { try? FileManager.default.removeItem(at: file) }
        var request = URLRequest(url: try await Fixtures.url("/bytes/\(size)?seed=7"))
        request.timeoutInterval = 60
        var configuration = ExchangeConfiguration(transport: Fixtures.transport)
        configuration.sink = .file(file)

        let baseline = ProcessStats.residentBytes()
        let sampler = ResidentSizeSampler()
        let started = ContinuousClock.now
        let result = try await Exchange(request: request, configuration: configuration).result()
        let elapsed = ContinuousClock.now - started
        let peak = sampler.stop()

        #expect(result.bytesReceived == Int64(size))
        let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
        #expect((attributes[.size] as? Int) == size)
        print("1 GiB download to file: peak RSS \(peak / 1_048_576) MB (baseline \(baseline / 1_048_576) MB) in \(elapsed)")
        // The process also hosts the test server and whatever earlier tests left in the allocator,
        // so the download is judged by how much it adds; alone, the whole process peaks near 61 MB.
        #expect(peak - baseline < 48 * 1_048_576, "the download added \((peak - baseline) / 1_048_576) MB")
    }

    @Test func pauseForTwoSecondsThenResumeGivesIdenticalBytes() async throws {
        let path = "/bytes/\(8 << 20)?seed=42"
        let reference = try await Fixtures.exchange(path)
        let url = try await Fixtures.url(path)

        let received = Atomic<Int64>(0)
        var configuration = ExchangeConfiguration(transport: Fixtures.transport)
        configuration.handlers.downloadProgress = { received.store($0.totalBytes, ordering: .relaxed) }
        let exchange = Exchange(request: URLRequest(url: url), configuration: configuration)
        exchange.pause()
        exchange.start()
        #expect(await eventually { exchange.isHoldingBody }, "the body reader stops")
        let beforePause = received.load(ordering: .relaxed)
        #expect(beforePause < Int64(8 << 20), "paused before it could finish")
        #expect(await throughout(.seconds(2)) { received.load(ordering: .relaxed) == beforePause }, "no bytes delivered while paused")
        #expect(exchange.isPaused)
        exchange.resume()
        let result = try await exchange.result()
        #expect(result.data?.sha256Hex == reference.data?.sha256Hex)
        #expect(result.data?.count == 8 << 20)
    }

    @Test func streamSinkHandsTheBodyToTheCaller() async throws {
        var configuration = ExchangeConfiguration(transport: Fixtures.transport)
        configuration.sink = .stream
        let url = try await Fixtures.url("/stream-bytes/500000?seed=3&chunk_size=10000")
        let exchange = Exchange(request: URLRequest(url: url), configuration: configuration)
        let result = try await exchange.result()
        let body = try #require(result.body)
        let data = try await body.collect()
        #expect(data.count == 500_000)
        #expect(exchange.receiveProgress.totalBytes == 500_000)
        #expect(exchange.phase == .completed)
        let reference = try await Fixtures.exchange("/stream-bytes/500000?seed=3&chunk_size=10000")
        #expect(data == reference.data)
    }

    @Test func outputStreamSink() async throws {
        let file = Fixtures.temporaryFile()
        defer { try? FileManager.default.removeItem(at: file) }
        let sink = ResponseSink.outputStream(try #require(OutputStream(url: file, append: false)))
        let result = try await Fixtures.exchange("/bytes/300000?seed=9") { $0.sink = sink }
        #expect(result.data == nil)
        let reference = try await Fixtures.exchange("/bytes/300000?seed=9")
        #expect(try Data(contentsOf: file) == reference.data)
    }

    @Test func fileSinkOffsetAppendsAfterKeptBytes() async throws {
        let file = Fixtures.temporaryFile()
        defer { try? FileManager.default.removeItem(at: file) }
        try Data("KEEPgarbage".utf8).write(to: file)
        let result = try await Fixtures.exchange("/bytes/1000?seed=1") { $0.sink = .file(file, offset: 4) }
        let contents = try Data(contentsOf: file)
        #expect(contents.prefix(4) == Data("KEEP".utf8))
        #expect(contents.dropFirst(4) == (try await Fixtures.exchange("/bytes/1000?seed=1")).data)
        #expect(result.bytesReceived == 1000)
    }

    @Test func fileSinkRefusesADanglingLinkAndWritesThroughALinkToAFile() async throws {
        let folder = try Fixtures.temporaryDirectory("file-sink-links")
        defer { try? FileManager.default.removeItem(at: folder) }
        let target = folder.appendingPathComponent("elsewhere.bin")
        let link = folder.appendingPathComponent("download.part")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: target)

        // Nothing at the link's end: the body is not written wherever the link points.
        await #expect {
            _ = try await Fixtures.exchange("/bytes/100?seed=3") { $0.sink = .file(link) }
        } throws: { error in
            (error as? URLError)?.code == .cannotCreateFile
        }
        #expect(!FileManager.default.fileExists(atPath: target.path))

        // A link to a file the user made: written through, as a file opened by its path is.
        try Data().write(to: target)
        let result = try await Fixtures.exchange("/bytes/100?seed=3") { $0.sink = .file(link) }
        #expect(result.bytesReceived == 100)
        #expect(try Data(contentsOf: target) == (try await Fixtures.exchange("/bytes/100?seed=3")).data)
    }

    @Test func cancelInEachPhase() async throws {
        // Idle: never sent.
        let idle = Exchange(request: URLRequest(url: try await Fixtures.url("/get")), configuration: .init(transport: Fixtures.transport))
        idle.cancel()
        await #expect { _ = try await idle.result() } throws: { ($0 as? URLError)?.code == .cancelled }

        // Awaiting the head.
        let waiting = Exchange(request: URLRequest(url: try await Fixtures.url("/delay/5")), configuration: .init(transport: Fixtures.transport))
        waiting.start()
        #expect(await eventually { waiting.phase == .awaitingResponse })
        let started = ContinuousClock.now
        waiting.cancel()
        await #expect { _ = try await waiting.result() } throws: { ($0 as? URLError)?.code == .cancelled }
        #expect(ContinuousClock.now - started < .seconds(2))

        // Receiving the body, and while paused.
        for paused in [false, true] {
            let progress = Atomic<Int64>(0)
            var configuration = ExchangeConfiguration(transport: Fixtures.transport)
            configuration.handlers.downloadProgress = { progress.store($0.totalBytes, ordering: .relaxed) }
            let receiving = Exchange(request: URLRequest(url: try await Fixtures.url("/drip?duration=5&numbytes=50&delay=0")), configuration: configuration)
            receiving.start()
            #expect(await eventually { progress.load(ordering: .relaxed) > 0 })
            #expect(receiving.phase == .receivingBody)
            if paused { receiving.pause() }
            receiving.cancel()
            await #expect { _ = try await receiving.result() } throws: { ($0 as? URLError)?.code == .cancelled }
            #expect(receiving.phase == .cancelled)
        }

        // After completion: nothing changes.
        let done = Exchange(request: URLRequest(url: try await Fixtures.url("/get")), configuration: .init(transport: Fixtures.transport))
        _ = try await done.result()
        done.cancel()
        #expect(done.phase == .completed)
    }

    @Test func swiftTaskCancellationCancelsTheExchange() async throws {
        let url = try await Fixtures.url("/delay/5")
        let exchange = Exchange(request: URLRequest(url: url), configuration: .init(transport: Fixtures.transport))
        let task = Task { try await exchange.result() }
        #expect(await eventually { exchange.phase == .awaitingResponse }, "the request is on its way")
        task.cancel()
        await #expect { _ = try await task.value } throws: { ($0 as? URLError)?.code == .cancelled }
    }

    @Test func thousandRequestsCancelledMidBodyLeakNoDescriptors() async throws {
        let url = try await Fixtures.url("/bytes/\(4 << 20)?seed=5")
        _ = try await Fixtures.exchange("/get")
        let before = ProcessStats.openDescriptors()
        for _ in 0..<1000 {
            var configuration = ExchangeConfiguration(transport: Fixtures.transport)
            configuration.sink = .stream
            let exchange = Exchange(request: URLRequest(url: url), configuration: configuration)
            let result = try await exchange.result()
            var iterator = try #require(result.body).makeAsyncIterator()
            _ = try await iterator.next()
            exchange.cancel()
            await #expect(throws: URLError.self) { _ = try await iterator.next() }
        }
        let after = try await Fixtures.exchange("/get")
        #expect(after.response.statusCode == 200)
        // Closed connections leave the table a moment after their exchanges end.
        _ = await eventually(timeout: .seconds(3)) { ProcessStats.openDescriptors() - before < 20 }
        let growth = ProcessStats.openDescriptors() - before
        #expect(growth < 20, "descriptors grew by \(growth)")
    }
}
