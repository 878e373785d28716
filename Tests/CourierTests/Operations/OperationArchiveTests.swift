import Foundation
import Testing
@testable import Courier
import CourierTestServer
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Operation archiving", .timeLimit(.minutes(1)))
struct OperationArchiveTests {
    @Test("archive while downloading → restore → resume a 256 MiB file download with identical SHA-256")
    func archiveRestoreResume() async throws {
        let length = 256 << 20
        let file = Fixtures.temporaryFile()
        defer { try? FileManager.default.removeItem(at: file) }
        let operation = try await OperationFixtures.operation(HTTPRequestOperation.self, "/range/\(length)")
        operation.outputFileURL = file
        let trigger = PauseTrigger(threshold: 8 << 20)
        trigger.install(on: operation) { _ in }
        OperationQueue().addOperation(operation)
        #expect(await eventually(timeout: .seconds(30)) { trigger.hasFired || operation.isFinished })
        try #require(operation.isExecuting, "the download ended before it was archived")

        let archive = try JSONEncoder().encode(operation)
        #expect(operation.isPaused, "encoding pauses the operation")
        let record = try JSONDecoder().decode(OperationArchive.self, from: archive)
        #expect(record.state == .ready)
        #expect(record.outputFilePath == file.path)
        #expect(record.response?.statusCode == 200)
        #expect(record.response?.headers["ETag"] != nil || record.response?.headers["Etag"] != nil)
        // Let the paused transfer let go of the file, as a process that exits would.
        operation.cancel()
        await operation.finished()

        let restored = try JSONDecoder().decode(HTTPRequestOperation.self, from: archive)
        #expect(restored.isReady && !restored.isFinished)
        #expect(restored.request.url == operation.request.url)
        let kept = URLConnectionOperation.fileSize(file)
        #expect(kept > 0 && kept < Int64(length))
        restored.transport = Fixtures.transport
        let firstProgress = Recorder<Int64>()
        restored.setDownloadProgressBlock { _, total, _ in firstProgress.append(total) }
        await OperationFixtures.run([restored])
        #expect(restored.error == nil)
        #expect(restored.response?.statusCode == 206)
        #expect(restored.totalBytesRead == Int64(length))
        #expect(await eventually { firstProgress.all.last == Int64(length) })
        #expect((firstProgress.all.first ?? 0) > kept, "the restored download continued after the kept bytes")
        #expect(try sha256Hex(ofFile: file) == OperationFixtures.rangeSHA256(count: length))
    }

    @Test("a finished operation archives as finished with its response, data and error")
    func finishedRoundTrip() async throws {
        let done = try await OperationFixtures.operation(URLConnectionOperation.self, "/bytes/40?seed=6")
        let failed = try await OperationFixtures.operation(URLConnectionOperation.self, "/bytes/40")
        failed.cancel()
        await OperationFixtures.run([done, failed])
        let restored = try JSONDecoder().decode(URLConnectionOperation.self, from: try JSONEncoder().encode(done))
        #expect(restored.isFinished)
        #expect(restored.responseData == TestPayload.bytes(count: 40, seed: 6))
        #expect(restored.response?.statusCode == 200)
        #expect(restored.totalBytesRead == 40)
        let restoredFailure = try JSONDecoder().decode(URLConnectionOperation.self, from: try JSONEncoder().encode(failed))
        #expect((restoredFailure.error as? URLError)?.code == .cancelled)
    }

    @Test("an operation paused in memory resumes from its kept bytes after a round trip")
    func pausedInMemory() async throws {
        let length = 24 << 20
        let operation = try await OperationFixtures.operation(HTTPRequestOperation.self, "/range/\(length)")
        let trigger = PauseTrigger(threshold: 1 << 20)
        trigger.install(on: operation)
        OperationQueue().addOperation(operation)
        #expect(await eventually { operation.isPaused || operation.isFinished })
        try #require(operation.isPaused)
        // Archived once the pause holds: the attempt it stopped has ended and its bytes are kept.
        #expect(await eventually { operation.driver.exchange?.phase.isTerminal != false })
        let archive = try JSONEncoder().encode(operation)
        let record = try JSONDecoder().decode(OperationArchive.self, from: archive)
        #expect(record.state == .ready)
        #expect((record.partialData?.count ?? 0) > 0)
        let restored = try JSONDecoder().decode(HTTPRequestOperation.self, from: archive)
        restored.transport = Fixtures.transport
        await OperationFixtures.run([restored])
        #expect(restored.response?.statusCode == 206)
        #expect(restored.responseData?.sha256Hex == OperationFixtures.rangeSHA256(count: length))
    }

    @Test("an archive without a URL restores as file:/// and fails as an unsupported URL when started")
    func archiveWithoutURL() async throws {
        let json = #"{"version":1,"request":{"headers":{},"timeoutInterval":60},"state":"ready","totalBytesRead":0}"#
        let operation = try JSONDecoder().decode(URLConnectionOperation.self, from: Data(json.utf8))
        #expect(operation.request.url?.absoluteString == "file:///")
        operation.transport = Fixtures.transport
        await OperationFixtures.run([operation])
        #expect((operation.error as? URLError)?.code == .unsupportedURL, "\(String(describing: operation.error))")
    }

    @Test("a newer archive format is rejected")
    func newerVersion() throws {
        let json = #"{"version":99,"request":{"headers":{},"timeoutInterval":60},"state":"ready","totalBytesRead":0}"#
        #expect(throws: OperationArchiveError.unsupportedVersion(99)) {
            _ = try JSONDecoder().decode(URLConnectionOperation.self, from: Data(json.utf8))
        }
    }
}

/// An archive is a file a user may be handed: values no operation writes are refused with a typed error naming the
/// field, before anything is restored.
@Suite("Operation archives from outside", .timeLimit(.minutes(1)))
struct UntrustedOperationArchiveTests {
    /// An archive of a ready GET, with `extra` fields (and `"totalBytesRead":0` unless `extra` has its own).
    static func decode(_ extra: String, version: Int = 1) throws -> URLConnectionOperation {
        let count = extra.contains("totalBytesRead") ? "" : #","totalBytesRead":0"#
        let json = #"{"version":\#(version),"request":{"url":"http://127.0.0.1/a","headers":{},"timeoutInterval":60},"state":"ready""#
            + count + extra + "}"
        return try JSONDecoder().decode(URLConnectionOperation.self, from: Data(json.utf8))
    }

    @Test("impossible values are refused, naming the field", arguments: [
        (#","response":{"statusCode":-1,"headers":{}}"#, "response.statusCode"),
        (#","response":{"statusCode":1000,"headers":{}}"#, "response.statusCode"),
        (#","response":{"statusCode":42,"headers":{}}"#, "response.statusCode"),
        (#","totalBytesRead":-5"#, "totalBytesRead"),
        (#","totalBytesRead":9223372036854775807"#, "totalBytesRead"),
        (#","outputFilePath":"/tmp/x","resumption":{"offset":-1}"#, "resumption.offset"),
        (#","outputFilePath":"/tmp/x","resumption":{"offset":100,"completeLength":10}"#, "resumption.completeLength"),
        (#","outputFilePath":"/tmp/x","resumption":{"offset":10,"completeLength":9223372036854775807}"#, "resumption.completeLength"),
        (#","outputFilePath":"relative/file""#, "outputFilePath"),
        (#","outputFilePath":"""#, "outputFilePath"),
        (#","outputFilePath":"/tmp/a\u0000/etc/passwd""#, "outputFilePath"),
    ])
    func impossibleValues(extra: String, field: String) throws {
        let error = #expect(throws: OperationArchiveError.self) { _ = try Self.decode(extra) }
        guard case .invalid(let named, _) = error else {
            Issue.record("\(String(describing: error))")
            return
        }
        #expect(named == field)
        #expect(error?.description.contains(field) == true)
    }

    @Test("a format version other than 1 is refused", arguments: [0, -1, 2])
    func otherVersions(version: Int) {
        #expect(throws: OperationArchiveError.unsupportedVersion(version)) { _ = try Self.decode("", version: version) }
    }

    @Test("an archive saying executing or paused restores ready, and runs", arguments: ["executing", "paused"])
    func runningStates(state: String) async throws {
        let url = try await Fixtures.url("/bytes/10")
        let json = #"{"version":1,"request":{"url":"\#(url.absoluteString)","headers":{},"timeoutInterval":60},"state":"\#(state)","totalBytesRead":0}"#
        let operation = try JSONDecoder().decode(URLConnectionOperation.self, from: Data(json.utf8))
        #expect(operation.isReady && !operation.isExecuting && !operation.isPaused)
        operation.transport = Fixtures.transport
        await OperationFixtures.run([operation])
        #expect(operation.isFinished)
        #expect(operation.responseData?.count == 10)
    }

    @Test("the largest counts an archive may hold are accepted")
    func largestCounts() throws {
        let operation = try Self.decode(#","totalBytesRead":4611686018427387904,"outputFilePath":"/tmp/x","resumption":{"offset":4611686018427387904}"#)
        #expect(operation.totalBytesRead == 1 << 62)
    }
}
