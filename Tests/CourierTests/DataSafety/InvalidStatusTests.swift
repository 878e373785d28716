@testable import Courier
import Foundation
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Issue #13, item 2: a status code outside 100…599 (AsyncHTTPClient 1.37 traps on one below 100
/// followed by a body) fails the request with `URLError(.badServerResponse)`, closes the connection,
/// and leaves the process — and a batch around it — alive.
@Suite("Data safety: status codes that are not HTTP statuses", .timeLimit(.minutes(3)))
struct InvalidStatusTests {
    static let cases: [(code: String, body: String)] = ["000", "042", "099", "600", "999"].flatMap { code in
        ["length", "chunked", "none"].map { (code, $0) }
    }

    @Test(arguments: cases)
    func theExchangeFailsAndTheConnectionIsNotReused(_ item: (code: String, body: String)) async throws {
        let server = try await HostileRoutes.startServer()
        defer { Task { await server.stop() } }
        let error = await #expect(throws: URLError.self) {
            _ = try await Exchange(
                request: URLRequest(url: server.url("/status/\(item.code)?body=\(item.body)")),
                configuration: .init(transport: Fixtures.transport)
            ).result()
        }
        #expect(error?.code == .badServerResponse)
        #expect(error?.localizedDescription.contains("status code \(item.code)") == true, "\(String(describing: error))")
        // A good request afterwards goes out on a new connection (the refused one was closed).
        let after = try await Exchange(request: URLRequest(url: server.url("/stale-target")), configuration: .init(transport: Fixtures.transport)).result()
        #expect(after.response.statusCode == 200 && after.data == Data("ok".utf8))
        #expect(server.requests.map(\.connection) == [0, 1])
    }

    @Test func sessionsAndOperationsFailToo() async throws {
        let server = try await HostileRoutes.startServer()
        defer { Task { await server.stop() } }
        let manager = SessionFixtures.manager()
        defer { manager.invalidateSessionCancelingTasks(true) }
        await #expect(throws: URLError.self) { _ = try await manager.data(for: URLRequest(url: server.url("/status/000?body=chunked"))) }

        let operation = HTTPRequestOperation(request: URLRequest(url: server.url("/status/042")))
        operation.transport = Fixtures.transport
        operation.start()
        await operation.finished()
        #expect((operation.error as? URLError)?.code == .badServerResponse, "\(String(describing: operation.error))")
    }

    @Test func theCLIFailsTheRequestAndABatchKeepsGoing() async throws {
        let server = try await HostileRoutes.startServer()
        defer { Task { await server.stop() } }
        let get = try await CLIRequestTests.courier(["get", server.url("/status/000?body=chunked").absoluteString])
        #expect(get.status == 4)
        #expect(get.standardError.contains("status code 000"), "\(get.standardError)")

        let folder = try Fixtures.temporaryDirectory("status")
        defer { try? FileManager.default.removeItem(at: folder) }
        let list = """
        \(server.url("/status/000?body=length"))\tzero.bin
        \(server.url("/file/honest"))\tgood.bin
        \(server.url("/status/099?body=chunked"))\tninety-nine.bin
        """
        let listFile = folder.appendingPathComponent("list.txt")
        try list.write(to: listFile, atomically: true, encoding: .utf8)
        let batch = try await ChildProcess.run("courier", ["batch", listFile.path, "--concurrency", "1", "--output-dir", folder.path])
        #expect(!batch.terminatedBySignal)
        #expect(batch.status == 6, "\(batch.standardError)")
        #expect(batch.standardOutput.contains("1 of 3 downloads succeeded, 2 failed"), "\(batch.standardOutput)")
        #expect(try Data(contentsOf: folder.appendingPathComponent("good.bin")) == HostileFile.content(version: 1))
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("zero.bin").path))
    }
}
