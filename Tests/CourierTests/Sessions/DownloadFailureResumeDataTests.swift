import Foundation
import Testing
import Courier
import CourierTestServer
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A download whose connection drops midway completes with resume data in its error (as
/// URLSession does), keeping the partial file, and that data finishes the download with Range.
@Suite("Sessions: resume data after a lost connection", .timeLimit(.minutes(1)))
struct DownloadFailureResumeDataTests {
    @Test func aLostConnectionLeavesResumeDataThatFinishesTheDownload() async throws {
        let manager = SessionFixtures.manager()
        // The server closes the connection once 120 000 of the 300 000 bytes are sent.
        let path = "/download/300000?seed=41&abort_after=120000"
        let first = manager.downloadTask(with: try await SessionFixtures.request(path), destination: { _, _ in SessionFixtures.destination() }, completionHandler: nil)
        let failure = await #expect(throws: URLError.self) { try await first.value }
        #expect(failure?.code == .networkConnectionLost)
        let data = try #require(failure.flatMap(DownloadTask.resumeData(from:)))
        let resume = try DownloadResumeData(data: data)
        #expect(resume.resumption.offset == 120_000)
        #expect(resume.resumption.entityTag == "\"download-41-300000\"")
        #expect(FileManager.default.fileExists(atPath: resume.partialFilePath), "the partial file is kept for the resume data")

        let server = try await Fixtures.plainServer.value
        let before = server.requestLog.count
        let destination = SessionFixtures.destination()
        defer { try? FileManager.default.removeItem(at: destination) }
        let resumed = manager.downloadTask(withResumeData: data, destination: { _, _ in destination }, completionHandler: nil)
        let location = try #require(try await resumed.value)
        #expect(try sha256Hex(ofFile: location) == TestPayload.bytes(count: 300_000, seed: 41).sha256Hex)
        let ranged = server.requestLog.requests.dropFirst(before).first { $0.path == "/download/300000" }
        #expect(ranged?.header("range") == "bytes=120000-")
    }

    @Test func failuresWithNothingToContinueCarryNoResumeData() async throws {
        let manager = SessionFixtures.manager { $0.timeoutIntervalForRequest = 0.5 }
        // A response whose body never starts: it times out with nothing on disk to continue.
        let idle = manager.downloadTask(with: try await SessionFixtures.request("/slow-body/1000?delay=5"), destination: { _, _ in SessionFixtures.destination() }, completionHandler: nil)
        let timedOut = await #expect(throws: URLError.self) { try await idle.value }
        #expect(timedOut?.code == .timedOut)
        #expect((idle.response as? HTTPURLResponse)?.statusCode == 200)
        #expect(timedOut.flatMap(DownloadTask.resumeData(from:)) == nil)
        // No response at all.
        var refused = URLRequest(url: try #require(URL(string: "http://127.0.0.1:1/nothing")))
        refused.timeoutInterval = 5
        let unreachable = manager.downloadTask(with: refused, completionHandler: nil)
        await #expect(throws: URLError.self) { try await unreachable.value }
        #expect(unreachable.error.flatMap(DownloadTask.resumeData(from:)) == nil)
    }
}
