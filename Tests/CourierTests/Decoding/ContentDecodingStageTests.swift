import CompressNIO
import Foundation
import NIOCore
import NIOFoundationCompat
import Synchronization
import Testing
@testable import Courier
import CourierTesting
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Pipeline: ContentDecodingStage against StubTransport")
struct ContentDecodingStageTests {
    /// About 190 KB of text that compresses about ten times.
    static let text = Data((0..<4000).map { "line \($0): the quick brown fox jumps over the lazy dog \($0 * 7919 % 10007)\n" }.joined().utf8)

    static func encoded(_ data: Data, _ algorithm: CompressionAlgorithm) throws -> Data {
        var buffer = ByteBuffer(data: data)
        let compressed = try buffer.compress(with: algorithm)
        return Data(buffer: compressed)
    }

    /// `data` cut into pieces of `size` bytes.
    static func pieces(_ data: Data, of size: Int) -> [Data] {
        let data = Data(data)
        return stride(from: 0, to: data.count, by: size).map { data.subdata(in: $0..<min($0 + size, data.count)) }
    }

    static func stub(_ encoding: String?, _ body: StubBody, status: Int = 200, extra: [(String, String)] = []) -> StubTransport {
        var headers: [(name: String, value: String)] = [("Content-Type", "text/plain")] + extra.map { (name: $0.0, value: $0.1) }
        if let encoding { headers.append(("Content-Encoding", encoding)) }
        let fields = headers
        return StubTransport { _ in StubResponse(statusCode: status, headers: fields, body: body) }
    }

    @Test func requestsAskForGzipAndDeflateUnlessTheCallerChoseOrAsksForARange() async throws {
        let stub = Self.stub(nil, .data(Data("plain".utf8)))
        _ = try await StageTests.exchange("/a", over: stub).result()
        var own = URLRequest(url: URL(string: "http://api.example/b")!)
        own.setValue("br", forHTTPHeaderField: "Accept-Encoding")
        _ = try await Exchange(request: own, configuration: ExchangeConfiguration(transport: stub)).result()
        var range = URLRequest(url: URL(string: "http://api.example/c")!)
        range.setValue("bytes=10-", forHTTPHeaderField: "Range")
        _ = try? await Exchange(request: range, configuration: ExchangeConfiguration(transport: stub)).result()
        var off = ExchangeConfiguration(transport: stub)
        off.contentDecoding = nil
        _ = try await Exchange(request: URLRequest(url: URL(string: "http://api.example/d")!), configuration: off).result()
        #expect(stub.requests.map { $0.value(forHTTPHeaderField: "Accept-Encoding") } == ["gzip, deflate", "br", "identity", nil])
    }

    @Test(arguments: ["gzip", "x-gzip", "deflate", "raw-deflate"])
    func aBodyIsDecodedAsItStreamsAndTheHeadDescribesTheDecodedBody(coding: String) async throws {
        let algorithm: CompressionAlgorithm = switch coding {
        case "deflate": .zlib()
        case "raw-deflate": .deflate()
        default: .gzip()
        }
        let body = try Self.encoded(Self.text, algorithm)
        // One byte at first (a deflate body's format is told by its first two bytes), then odd-sized pieces.
        let chunks = [body.prefix(1)] + Self.pieces(body.dropFirst(), of: 777)
        let stub = Self.stub(coding == "raw-deflate" ? "deflate" : coding, .chunks(chunks.map { Data($0) }),
                             extra: [("Content-Length", "\(body.count)")])
        let result = try await StageTests.exchange("/text", over: stub).result()
        #expect(result.data == Self.text)
        #expect(result.response.value(forHTTPHeaderField: "Content-Encoding") == nil)
        #expect(result.response.value(forHTTPHeaderField: "Content-Length") == nil)
        #expect(result.response.expectedContentLength == -1)
        #expect(result.response.value(forHTTPHeaderField: "Content-Type") == "text/plain")
        // The head as it came over the wire stays in the metrics.
        #expect(result.metrics.transactions.last?.response?.value(forHTTPHeaderField: "Content-Encoding") != nil)
    }

    @Test func gzipMembersOneAfterAnotherDecodeToTheirConcatenation() async throws {
        let first = Self.text.prefix(50_000), second = Self.text.dropFirst(50_000)
        let body = try Self.encoded(Data(first), .gzip()) + Self.encoded(Data(second), .gzip())
        let stub = Self.stub("gzip", .chunks(Self.pieces(body, of: 4096)))
        #expect(try await StageTests.exchange("/m", over: stub).result().data == Self.text)
    }

    @Test func progressCountsDecodedBytes() async throws {
        let body = try Self.encoded(Self.text, .gzip())
        let stub = Self.stub("gzip", .data(body), extra: [("Content-Length", "\(body.count)")])
        let seen = ProgressLog()
        _ = try await StageTests.exchange("/p", over: stub) { $0.handlers.downloadProgress = { seen.append($0) } }.result()
        #expect(seen.all.last?.totalBytes == Int64(Self.text.count))
        #expect(seen.all.allSatisfy { $0.totalBytesExpected == -1 })
    }

    @Test func aTruncatedStreamFailsWithCannotDecodeContentData() async throws {
        let body = try Self.encoded(Self.text, .gzip())
        let stub = Self.stub("gzip", .data(body.prefix(body.count / 2)))
        let error = await #expect(throws: URLError.self) { try await StageTests.exchange("/t", over: stub).result() }
        #expect(error?.code == .cannotDecodeContentData)
        #expect(error?.localizedDescription.contains("ended before the end of its gzip stream") == true)
    }

    @Test func corruptDataFailsWithCannotDecodeContentData() async throws {
        var body = try Self.encoded(Self.text, .gzip())
        for index in 20..<60 { body[index] ^= 0x5A }
        let stub = Self.stub("gzip", .data(body))
        let error = await #expect(throws: URLError.self) { try await StageTests.exchange("/c", over: stub).result() }
        #expect(error?.code == .cannotDecodeContentData)
    }

    @Test func aDecompressionBombIsRefusedSoonByItsRatio() async throws {
        let bomb = try Self.encoded(Data(count: 64 << 20), .gzip(configuration: .init(compressionLevel: 9)))
        let stub = Self.stub("gzip", .chunks(Self.pieces(bomb, of: 1024)))
        let delivered = ProgressLog()
        let error = await #expect(throws: URLError.self) {
            try await StageTests.exchange("/bomb", over: stub) { $0.handlers.downloadProgress = { delivered.append($0) } }.result()
        }
        #expect(error?.code == .cannotDecodeContentData)
        #expect(error?.localizedDescription.contains("decompression bomb") == true)
        // Refused just past the 1 MiB floor, not after inflating 64 MiB.
        #expect((delivered.all.last?.totalBytes ?? 0) < 2 << 20)
    }

    @Test func theAbsoluteLimitHolds() async throws {
        let body = try Self.encoded(Self.text, .gzip())
        let stub = Self.stub("gzip", .data(body))
        let error = await #expect(throws: URLError.self) {
            try await StageTests.exchange("/big", over: stub) {
                $0.contentDecoding = ContentDecoding(maximumDecodedSize: 10_000)
            }.result()
        }
        #expect(error?.code == .cannotDecodeContentData)
        #expect(error?.localizedDescription.contains("maximumDecodedSize") == true)
    }

    @Test func bodiesThatAreNotDecodedArriveAsTheyCame() async throws {
        let gzipped = try Self.encoded(Self.text, .gzip())
        // A coding Courier does not decode, two codings, a HEAD, a 206, and decoding turned off.
        for (encoding, body, status) in [("br", gzipped, 200), ("gzip, gzip", gzipped, 200), ("gzip", Data(), 200), ("gzip", gzipped, 206)] {
            let stub = Self.stub(encoding, .data(body), status: status, extra: status == 206 ? [("Content-Range", "bytes 0-\(body.count - 1)/\(body.count)")] : [])
            var request = URLRequest(url: URL(string: "http://api.example/raw")!)
            if status == 206 { request.setValue("bytes=0-", forHTTPHeaderField: "Range") }
            if body.isEmpty { request.httpMethod = "HEAD" }
            let result = try await Exchange(request: request, configuration: ExchangeConfiguration(transport: stub)).result()
            #expect(result.data == body, "\(encoding) \(status)")
            #expect(result.response.value(forHTTPHeaderField: "Content-Encoding") == encoding, "\(encoding) \(status)")
        }
        let stub = Self.stub("gzip", .data(gzipped))
        let off = try await StageTests.exchange("/off", over: stub) { $0.contentDecoding = nil }.result()
        #expect(off.data == gzipped)
    }

    @Test func cancellingTheReaderCancelsTheEncodedBody() async throws {
        let body = try Self.encoded(Self.text, .gzip())
        let stub = Self.stub("gzip", .chunks(Self.pieces(body, of: 1000), every: .milliseconds(50)))
        let exchange = StageTests.exchange("/slow", over: stub) { $0.sink = .stream }
        let result = try await exchange.result()
        var iterator = try #require(result.body).makeAsyncIterator()
        _ = try await iterator.next()
        exchange.cancel()
        await #expect(throws: URLError.self) { while try await iterator.next() != nil {} }
    }
}

/// Progress values in the order they were reported.
final class ProgressLog: Sendable {
    private let values = Mutex<[TransferProgress]>([])
    func append(_ value: TransferProgress) { values.withLock { $0.append(value) } }
    var all: [TransferProgress] { values.withLock { $0 } }
}
