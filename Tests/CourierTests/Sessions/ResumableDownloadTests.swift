import Foundation
import Synchronization
import Testing
@testable import Courier
import CourierTestServer
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Sessions: suspend, resume data and restarts", .serialized)
struct ResumableDownloadTests {
    static let size = 64 << 20
    static let expectedSHA = TestPayload.rangeContent(count: size).sha256Hex

    /// Starts a download of `path`, stops it after its first bytes, and returns its resume data.
    private static func interruptedDownload(_ manager: URLSessionManager, _ path: String) async throws -> Data {
        try await interruptedDownload(manager, request: try await SessionFixtures.request(path))
    }

    /// Starts a download of `request` (on any server), stops it after its first bytes, and
    /// returns its resume data. Also used by the nginx interop tests.
    static func interruptedDownload(_ manager: URLSessionManager, request: URLRequest) async throws -> Data {
        let task = manager.downloadTask(with: request, completionHandler: nil)
        let updates = task.progressUpdates()
        task.resume()
        for await progress in updates where progress.totalBytes > 0 {
            task.suspend()
            break
        }
        let resumeData = Signal<Data?>()
        task.cancel(byProducingResumeData: { resumeData.fire($0) })
        let data = try #require(await resumeData.wait())
        await #expect(throws: URLError.self) { try await task.value }
        #expect((task.error as? URLError)?.code == .cancelled)
        return data
    }

    /// Resumes `resumeData` in `manager`; returns the did-resume offset and the file's SHA-256.
    /// `size` is the whole body's length (default ``size``). Also used by the nginx interop tests.
    static func resume(_ manager: URLSessionManager, _ resumeData: Data, size: Int = ResumableDownloadTests.size) async throws -> (offset: Int64, expected: Int64, sha: String, status: Int) {
        let resumedAt = Mutex<(Int64, Int64)?>(nil)
        manager.setDownloadTaskDidResumeBlock { _, _, offset, expected in resumedAt.withLock { $0 = (offset, expected) } }
        let destination = SessionFixtures.destination()
        defer { try? FileManager.default.removeItem(at: destination) }
        let task = manager.downloadTask(withResumeData: resumeData, destination: { _, _ in destination }, completionHandler: nil)
        let location = try #require(try await task.value)
        let (offset, expected) = try #require(resumedAt.withLock { $0 })
        let status = (task.response as? HTTPURLResponse)?.statusCode ?? 0
        #expect(task.countOfBytesReceived == Int64(size))
        return (offset, expected, try sha256Hex(ofFile: location), status)
    }

    @Test func suspendForTwoSecondsThenResumeGivesIdenticalBytes() async throws {
        let manager = SessionFixtures.manager()
        let path = "/bytes/\(16 << 20)?seed=42"
        let task = manager.dataTask(with: try await SessionFixtures.request(path), completionHandler: nil)
        let updates = task.progressUpdates()
        task.resume()
        for await progress in updates where progress.totalBytes > 0 {
            task.suspend()
            break
        }
        #expect(task.state == .suspended)
        #expect(await eventually { task.exchange?.isHoldingBody == true }, "the body reader stops")
        let before = task.countOfBytesReceived
        #expect(await throughout(.seconds(2)) { task.countOfBytesReceived == before }, "nothing is read while suspended")
        #expect(before < Int64(16 << 20))
        task.resume()
        let data = try await task.value
        #expect(data.sha256Hex == TestPayload.bytes(count: 16 << 20, seed: 42).sha256Hex)
    }

    @Test func resumeDataContinuesWithARangeRequest() async throws {
        let manager = SessionFixtures.manager()
        let resumeData = try await Self.interruptedDownload(manager, "/range/\(Self.size)")
        let decoded = try DownloadResumeData(data: resumeData)
        #expect(decoded.resumption.offset > 0 && decoded.resumption.offset < Int64(Self.size))
        #expect(decoded.resumption.entityTag == "\"range-\(Self.size)\"")
        let onDisk = try FileManager.default.attributesOfItem(atPath: decoded.partialFilePath)[.size] as? Int
        #expect(onDisk.map(Int64.init) == decoded.resumption.offset)
        let outcome = try await Self.resume(manager, resumeData)
        #expect(outcome.status == 206)
        #expect(outcome.offset == decoded.resumption.offset)
        #expect(outcome.expected == Int64(Self.size))
        #expect(outcome.sha == Self.expectedSHA)
        #expect(!FileManager.default.fileExists(atPath: decoded.partialFilePath), "the partial file became the download")
    }

    @Test func resumeDataSurvivesADiskRoundTripAndAFreshManager() async throws {
        let first = SessionFixtures.manager()
        let resumeData = try await Self.interruptedDownload(first, "/range/\(Self.size)")
        first.invalidateSessionCancelingTasks(true)
        let file = Fixtures.temporaryFile()
        defer { try? FileManager.default.removeItem(at: file) }
        try resumeData.write(to: file)

        var configuration = SessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = 2
        let fresh = URLSessionManager(configuration: configuration)
        fresh.completionQueue = SessionFixtures.completionQueue
        let outcome = try await Self.resume(fresh, try Data(contentsOf: file))
        fresh.invalidateSessionCancelingTasks(false)
        #expect(outcome.status == 206)
        #expect(outcome.offset > 0)
        #expect(outcome.sha == Self.expectedSHA)
    }

    @Test func serverWithoutRangeSupportRestartsCleanly() async throws {
        let manager = SessionFixtures.manager()
        let resumeData = try await Self.interruptedDownload(manager, "/range/\(Self.size)?ignore_range=1")
        #expect(try DownloadResumeData(data: resumeData).resumption.offset > 0)
        let outcome = try await Self.resume(manager, resumeData)
        #expect(outcome.status == 200)
        #expect(outcome.offset == 0)
        #expect(outcome.sha == Self.expectedSHA)
    }

    @Test func changedEntityTagRestartsCleanly() async throws {
        let manager = SessionFixtures.manager()
        let original = try await Self.interruptedDownload(manager, "/range/\(Self.size)?etag=first")
        var changed = try DownloadResumeData(data: original)
        #expect(changed.resumption.entityTag == "\"first\"")
        changed.url = try await Fixtures.url("/range/\(Self.size)?etag=second")
        let outcome = try await Self.resume(manager, try changed.encoded())
        #expect(outcome.status == 200)
        #expect(outcome.offset == 0)
        #expect(outcome.sha == Self.expectedSHA)
    }

    @Test func nothingToResumeGivesNilAndInvalidDataFails() async throws {
        let manager = SessionFixtures.manager()
        let task = manager.downloadTask(with: try await SessionFixtures.request("/delay/2"), completionHandler: nil)
        task.resume()
        let produced = Signal<Data?>()
        task.cancel(byProducingResumeData: { produced.fire($0) })
        #expect(await produced.wait() == nil)

        let invalid = manager.downloadTask(withResumeData: Data("not resume data".utf8), completionHandler: nil)
        await #expect(throws: URLError.self) { try await invalid.value }
        #expect((invalid.error as? URLError)?.code == .cannotDecodeRawData)
    }
}
