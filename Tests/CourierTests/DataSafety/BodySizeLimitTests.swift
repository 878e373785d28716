@testable import Courier
import Foundation
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Issue #13, item 8: a server cannot make a client hold an unbounded body. The library's memory
/// destinations accept a maximum (`URLError(.dataLengthExceedsMaximum)` past it), and `courier get`
/// streams a body to standard output instead of holding it.
@Suite("Data safety: bodies held in memory are bounded", .timeLimit(.minutes(3)))
struct BodySizeLimitTests {
    static let limit: Int64 = 1 << 20

    @Test func theExchangeStopsAChunkedBodyAtTheLimit() async throws {
        let server = try await HostileRoutes.startServer()
        defer { Task { await server.stop() } }
        var configuration = ExchangeConfiguration(transport: Fixtures.transport)
        configuration.maximumBodySize = Self.limit
        let error = await #expect(throws: URLError.self) {
            _ = try await Exchange(request: URLRequest(url: server.url("/big?bytes=\(64 << 20)")), configuration: configuration).result()
        }
        #expect(error?.code == .dataLengthExceedsMaximum)
        #expect(error?.localizedDescription.contains("maximum of 1048576 bytes") == true)

        // A body within the limit is delivered whole.
        let small = try await Exchange(request: URLRequest(url: server.url("/big?bytes=\(Self.limit)")), configuration: configuration).result()
        #expect(small.data?.count == Int(Self.limit))
    }

    @Test func anAnnouncedLengthOverTheLimitFailsBeforeTheBody() async throws {
        let server = try await HostileRoutes.startServer()
        defer { Task { await server.stop() } }
        var configuration = ExchangeConfiguration(transport: Fixtures.transport)
        configuration.maximumBodySize = 50_000
        var received: [Int64] = []
        let progress = Recorder<Int64>()
        configuration.handlers.downloadProgress = { progress.append($0.totalBytes) }
        let error = await #expect(throws: URLError.self) {
            _ = try await Exchange(request: URLRequest(url: server.url("/file/honest")), configuration: configuration).result()
        }
        #expect(error?.code == .dataLengthExceedsMaximum)
        received = progress.all
        #expect(received.isEmpty, "no body byte was delivered: \(received)")
    }

    @Test func sessionsAndOperationsTakeAMaximum() async throws {
        let server = try await HostileRoutes.startServer()
        defer { Task { await server.stop() } }
        let manager = SessionFixtures.manager { $0.maximumResponseDataSize = Self.limit }
        defer { manager.invalidateSessionCancelingTasks(true) }
        let error = await #expect(throws: URLError.self) {
            _ = try await manager.data(for: URLRequest(url: server.url("/big?bytes=\(64 << 20)")))
        }
        #expect(error?.code == .dataLengthExceedsMaximum)
        let (data, _) = try await manager.data(for: URLRequest(url: server.url("/big?bytes=1000")))
        #expect(data.count == 1000)

        let operation = HTTPRequestOperation(request: URLRequest(url: server.url("/big?bytes=\(64 << 20)")))
        operation.transport = Fixtures.transport
        operation.maximumResponseDataSize = Self.limit
        operation.start()
        await operation.finished()
        #expect((operation.error as? URLError)?.code == .dataLengthExceedsMaximum, "\(String(describing: operation.error))")
        #expect(operation.copy() is HTTPRequestOperation)
        #expect((operation.copy() as? HTTPRequestOperation)?.maximumResponseDataSize == Self.limit)
    }

    /// 256 MiB through `courier get` to standard output (a file: the body alone): every byte arrives, the process
    /// stays small.
    @Test func courierGetStreamsTheBodyToStandardOutput() async throws {
        let server = try await HostileRoutes.startServer()
        defer { Task { await server.stop() } }
        let size: Int64 = 256 << 20
        let stdout = Fixtures.temporaryFile("stdout-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: stdout) }
        let outcome = try await ChildProcess.run("courier", ["get", server.url("/big?bytes=\(size)").absoluteString], standardOutput: stdout, timeout: .seconds(120))
        #expect(!outcome.terminatedBySignal)
        #expect(outcome.status == 0, "\(outcome.standardError)")
        let written = try #require(try FileManager.default.attributesOfItem(atPath: stdout.path)[.size] as? NSNumber).int64Value
        #expect(written == size)
        let handle = try FileHandle(forReadingFrom: stdout)
        defer { try? handle.close() }
        #expect(try handle.read(upToCount: 8) == Data("xxxxxxxx".utf8))
        #expect(outcome.peakResidentBytes > 0 && outcome.peakResidentBytes < 96 << 20, "peak RSS \(outcome.peakResidentBytes >> 20) MiB")
        print("courier get of \(size >> 20) MiB to stdout: peak RSS \(outcome.peakResidentBytes >> 20) MiB")
    }

    /// JSON is held only up to the pretty-print limit (8 MiB): a small document is pretty-printed (`--pretty format`,
    /// a terminal's default), a larger one is printed as it arrives, byte for byte; in a pipe it is never reformatted.
    @Test func courierGetPrettyPrintsOnlyJSONThatFitsTheLimit() async throws {
        let server = try await HostileRoutes.startServer()
        defer { Task { await server.stop() } }
        let small = try await CLIRequestTests.courier(["get", "-p", "hb", "--pretty", "format", server.url("/big-json?bytes=10").absoluteString])
        #expect(small.status == 0)
        #expect(small.standardOutput.hasPrefix("HTTP/1.1 200 OK\n"))
        #expect(small.standardOutput.hasSuffix("\n\n{\n  \"data\" : \"xxxxxxxxxx\"\n}\n"), "\(small.standardOutput.debugDescription)")
        let raw = try await CLIRequestTests.courier(["get", server.url("/big-json?bytes=10").absoluteString])
        #expect(raw.standardOutput == #"{"data":"xxxxxxxxxx"}"#, "in a pipe: the body as sent")

        let size = 48 << 20
        let stdout = Fixtures.temporaryFile("stdout-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: stdout) }
        let large = try await ChildProcess.run("courier", ["get", "--pretty", "format", server.url("/big-json?bytes=\(size)").absoluteString], standardOutput: stdout)
        #expect(large.status == 0, "\(large.standardError)")
        let printed = try Data(contentsOf: stdout)
        #expect(printed.count == size + #"{"data":""}"#.utf8.count)
        #expect(printed.suffix(2) == Data(#""}"#.utf8), "printed as sent, not reformatted")
        #expect(large.peakResidentBytes < 80 << 20, "peak RSS (48 MiB held would show)  \(large.peakResidentBytes >> 20) MiB")
    }
}
