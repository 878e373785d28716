import Foundation
import Testing
@testable import Courier
import CourierTestServer
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Download resumption with Range and If-Range", .serialized)
struct ResumptionTests {
    static let size = 3 << 20

    /// Downloads the first `keep` bytes of `path` to `file` by cancelling mid-body; returns the
    /// resumption point built from what is on disk and the first response.
    func partialDownload(_ path: String, to file: URL, keep: Int64) async throws -> DownloadResumption {
        var configuration = ExchangeConfiguration(transport: Fixtures.transport)
        configuration.sink = .stream
        let exchange = Exchange(request: URLRequest(url: try await Fixtures.url(path)), configuration: configuration)
        let result = try await exchange.result()
        #expect(FileManager.default.createFile(atPath: file.path, contents: nil))
        let handle = try FileHandle(forWritingTo: file)
        var written: Int64 = 0
        for try await chunk in try #require(result.body) {
            let part = chunk.prefix(Int(keep - written))
            try handle.write(contentsOf: part)
            written += Int64(part.count)
            if written >= keep { break }
        }
        try handle.close()
        exchange.cancel()
        return DownloadResumption(offset: written, response: result.response)
    }

    func resume(_ path: String, file: URL, from resumption: DownloadResumption) async throws -> ExchangeResult {
        var configuration = ExchangeConfiguration(transport: Fixtures.transport)
        configuration.sink = .file(file)
        configuration.resumption = resumption
        return try await Exchange(request: URLRequest(url: try await Fixtures.url(path)), configuration: configuration).result()
    }

    var reference: Data { TestPayload.rangeContent(count: Self.size) }

    @Test func continuesWithA206AndIdenticalBytes() async throws {
        let file = Fixtures.temporaryFile()
        defer { try? FileManager.default.removeItem(at: file) }
        let resumption = try await partialDownload("/range/\(Self.size)", to: file, keep: 1_000_003)
        #expect(resumption.offset == 1_000_003)
        #expect(resumption.validator != nil, "the server sends an ETag")
        let result = try await resume("/range/\(Self.size)", file: file, from: resumption)
        #expect(result.response.statusCode == 206)
        #expect(result.resumption == .continued(from: 1_000_003))
        #expect(result.bytesReceived == Int64(Self.size) - 1_000_003)
        #expect(result.request.value(forHTTPHeaderField: "Range") == "bytes=1000003-")
        #expect(try Data(contentsOf: file).sha256Hex == reference.sha256Hex)
    }

    @Test func changedEntityTagRestartsCleanly() async throws {
        let file = Fixtures.temporaryFile()
        defer { try? FileManager.default.removeItem(at: file) }
        let resumption = try await partialDownload("/range/\(Self.size)?etag=v1", to: file, keep: 500_000)
        let result = try await resume("/range/\(Self.size)?etag=v2", file: file, from: resumption)
        #expect(result.response.statusCode == 200)
        #expect(result.resumption == .restarted)
        #expect(try Data(contentsOf: file).sha256Hex == reference.sha256Hex)
    }

    @Test func serverIgnoringRangesRestartsCleanly() async throws {
        let file = Fixtures.temporaryFile()
        defer { try? FileManager.default.removeItem(at: file) }
        let resumption = try await partialDownload("/range/\(Self.size)", to: file, keep: 700_000)
        let result = try await resume("/range/\(Self.size)?ignore_range=1", file: file, from: resumption)
        #expect(result.resumption == .restarted)
        #expect(try Data(contentsOf: file).count == Self.size)
        #expect(try Data(contentsOf: file).sha256Hex == reference.sha256Hex)
    }

    @Test func alreadyCompleteIsA416ForTheWholeLength() async throws {
        let file = Fixtures.temporaryFile()
        defer { try? FileManager.default.removeItem(at: file) }
        let resumption = try await partialDownload("/range/\(Self.size)", to: file, keep: Int64(Self.size))
        let result = try await resume("/range/\(Self.size)", file: file, from: resumption)
        #expect(result.resumption == .alreadyComplete)
        #expect(try Data(contentsOf: file).sha256Hex == reference.sha256Hex)
    }

    @Test func keptBytesBeyondTheResourceRestart() async throws {
        let file = Fixtures.temporaryFile()
        defer { try? FileManager.default.removeItem(at: file) }
        let resumption = try await partialDownload("/range/\(Self.size)", to: file, keep: 100_000)
        let shorter = 50_000
        let bigger = DownloadResumption(offset: 80_000, entityTag: resumption.entityTag, lastModified: nil)
        let result = try await resume("/range/\(shorter)?etag=\(resumption.entityTag?.trimmingCharacters(in: CharacterSet(charactersIn: "\"")) ?? "")", file: file, from: bigger)
        #expect(result.resumption == .restarted || result.response.statusCode == 200)
        #expect(try Data(contentsOf: file) == TestPayload.rangeContent(count: shorter))
    }

    @Test func anErrorStatusLeavesTheKeptBytesAlone() async throws {
        let file = Fixtures.temporaryFile()
        defer { try? FileManager.default.removeItem(at: file) }
        let resumption = try await partialDownload("/range/\(Self.size)", to: file, keep: 300_000)
        let result = try await resume("/status/404", file: file, from: resumption)
        #expect(result.response.statusCode == 404)
        #expect(result.resumption == .unrelated)
        #expect(try Data(contentsOf: file) == reference.prefix(300_000))
    }

    @Test func resumptionSurvivesEncoding() throws {
        let point = DownloadResumption(offset: 42, entityTag: "\"abc\"", lastModified: "Wed, 21 Oct 2015 07:28:00 GMT")
        let decoded = try JSONDecoder().decode(DownloadResumption.self, from: JSONEncoder().encode(point))
        #expect(decoded == point)
        #expect(DownloadResumption(offset: 5, entityTag: "W/\"weak\"").validator == nil)
        #expect(DownloadResumption(offset: 5, entityTag: "W/\"weak\"", lastModified: "x").validator == "x")
        #expect(!DownloadResumption(offset: 0, entityTag: "\"a\"").canResume)
    }

    @Test func withoutAValidatorOnlyAnExplicitResumptionContinues() async throws {
        let file = Fixtures.temporaryFile()
        defer { try? FileManager.default.removeItem(at: file) }
        try reference.prefix(400_000).write(to: file)
        // No validator: by default the download starts over.
        #expect(!DownloadResumption(offset: 400_000).canResume)
        let unproven = DownloadResumption(offset: 400_000, continuesWithoutValidator: true)
        #expect(unproven.canResume)
        let result = try await resume("/range/\(Self.size)", file: file, from: unproven)
        #expect(result.resumption == .continued(from: 400_000))
        #expect(result.request.value(forHTTPHeaderField: "Range") == "bytes=400000-")
        #expect(result.request.value(forHTTPHeaderField: "If-Range") == nil)
        #expect(try Data(contentsOf: file).sha256Hex == reference.sha256Hex)

        // The range must still fit: a 206 that starts elsewhere is a mismatch, and the exchange starts over.
        let elsewhere = DownloadResumption(offset: 10, continuesWithoutValidator: true)
        let response = try #require(HTTPURLResponse(
            url: URL(string: "http://h/")!, statusCode: 206, httpVersion: nil, headerFields: ["Content-Range": "bytes 20-99/100"]
        ))
        #expect(elsewhere.outcome(of: response) == .mismatch)
        // Nor is a range whose end is unknown (`/*`): unproven bytes need the total to be proven complete.
        let openEnded = try #require(HTTPURLResponse(
            url: URL(string: "http://h/")!, statusCode: 206, httpVersion: nil, headerFields: ["Content-Range": "bytes 10-99/*"]
        ))
        #expect(elsewhere.outcome(of: openEnded) == .mismatch)
        // With a validator the flag changes nothing: the strong comparison decides.
        let validated = DownloadResumption(offset: 20, entityTag: "\"a\"", continuesWithoutValidator: true)
        #expect(validated.outcome(of: response) == .mismatch, "the 206 has no ETag")
    }

    @Test func resumptionsWrittenBeforeTheFlagStillDecode() throws {
        let old = Data(#"{"offset":7,"entityTag":"\"e\""}"#.utf8)
        let decoded = try JSONDecoder().decode(DownloadResumption.self, from: old)
        #expect(decoded == DownloadResumption(offset: 7, entityTag: "\"e\""))
        #expect(!decoded.continuesWithoutValidator)
        let flagged = DownloadResumption(offset: 7, continuesWithoutValidator: true)
        #expect(try JSONDecoder().decode(DownloadResumption.self, from: JSONEncoder().encode(flagged)) == flagged)
    }

    @Test func contentRangeParsing() {
        let full = ContentRange(parsing: "bytes 10-19/100")
        #expect(full?.start == 10 && full?.end == 19 && full?.total == 100)
        #expect(ContentRange(parsing: "bytes */100")?.total == 100)
        #expect(ContentRange(parsing: "bytes 0-9/*")?.total == nil)
        #expect(ContentRange(parsing: "bytes 9-0/10") == nil)
        #expect(ContentRange(parsing: "items 0-1/2") == nil)
        #expect(ContentRange(parsing: "bytes x-y/z") == nil)
    }

    @Test func metricsAreOrderedPerTransaction() async throws {
        let result = try await Fixtures.exchange("/redirect/2")
        let metrics = result.metrics
        #expect(metrics.transactions.count == 3)
        for transaction in metrics.transactions {
            let start = try #require(transaction.responseStart)
            let end = try #require(transaction.responseEnd)
            #expect(metrics.fetchStart <= transaction.requestStart)
            #expect(transaction.requestStart <= start && start <= end)
            #expect(transaction.httpVersion == "HTTP/1.1")
        }
        #expect(try #require(metrics.duration) >= 0)
    }
}

