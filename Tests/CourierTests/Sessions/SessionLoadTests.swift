import Foundation
import Synchronization
import Testing
@testable import Courier
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Sessions: many tasks and large downloads", .serialized)
struct SessionLoadTests {
    @Test func thousandConcurrentDataTasksAllComplete() async throws {
        var configuration = SessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = 16
        let manager = URLSessionManager(configuration: configuration)
        manager.completionQueue = SessionFixtures.completionQueue
        manager.responseSerializer = HTTPResponseSerializer()
        let completed = Atomic<Int>(0)
        let failures = Atomic<Int>(0)
        let allDone = Signal<Bool>()
        let count = 1_000
        let base = try await Fixtures.url("/bytes/512")
        let started = ContinuousClock.now
        for index in 0..<count {
            var components = try #require(URLComponents(url: base, resolvingAgainstBaseURL: false))
            components.queryItems = [URLQueryItem(name: "seed", value: "\(index)")]
            let request = URLRequest(url: try #require(components.url))
            manager.dataTask(with: request) { response, _, error in
                if error != nil || (response as? HTTPURLResponse)?.statusCode != 200 { failures.add(1, ordering: .relaxed) }
                if completed.add(1, ordering: .relaxed).newValue == count { allDone.fire(true) }
            }.resume()
        }
        #expect(manager.tasks.count <= count)
        _ = await allDone.wait()
        print("1,000 concurrent data tasks over 16 connections: \(ContinuousClock.now - started)")
        #expect(failures.load(ordering: .relaxed) == 0)
        #expect(completed.load(ordering: .relaxed) == count)
        #expect(await eventually { manager.tasks.isEmpty }, "every task left the manager once completed")
        let invalid = Signal<Bool>()
        manager.setSessionDidBecomeInvalidBlock { _, _ in invalid.fire(true) }
        manager.invalidateSessionCancelingTasks(false)
        _ = await invalid.wait()
    }

    @Test func oneGiBDownloadToFileKeepsMemoryFlat() async throws {
        let size = 1 << 30
        let manager = SessionFixtures.manager()
        let destination = SessionFixtures.destination()
        defer { try? FileManager.default.removeItem(at: destination) }
        var request = try await SessionFixtures.request("/bytes/\(size)?seed=7")
        request.timeoutInterval = 60

        let baseline = ProcessStats.residentBytes()
        let sampler = ResidentSizeSampler()
        let started = ContinuousClock.now
        let location = try await manager.download(request, to: destination)
        let elapsed = ContinuousClock.now - started
        let peak = sampler.stop()

        #expect(location == destination)
        let attributes = try FileManager.default.attributesOfItem(atPath: destination.path)
        #expect((attributes[.size] as? Int) == size)
        print("Session 1 GiB download to file: peak RSS \(peak / 1_048_576) MB (baseline \(baseline / 1_048_576) MB, added \((peak - baseline) / 1_048_576) MB) in \(elapsed)")
        // The process also hosts the test server; the download is judged by what it adds.
        #expect(peak - baseline < 48 * 1_048_576, "the download added \((peak - baseline) / 1_048_576) MB")
    }
}
