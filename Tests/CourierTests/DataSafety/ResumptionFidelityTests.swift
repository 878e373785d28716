@testable import Courier
import Foundation
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Issue #13, items 3–6: a resumed download keeps its bytes only when the server proves the rest
/// belongs to them; every other answer starts the file over from its first byte (never appended
/// after the kept bytes), and no answer — not even `Content-Length: Int64.max` — traps. Run through
/// the exchange, session download tasks, operations (paused and resumed) and `courier download --continue`
/// against ``HostileRoutes``'s `/file/` scenarios.
@Suite("Data safety: resumed downloads against a hostile server", .timeLimit(.minutes(3)))
struct ResumptionFidelityTests {
    /// One scenario: the bytes kept before, and what the finished download must hold.
    struct Scenario: Sendable, CustomTestStringConvertible {
        enum Expected: Sendable, Equatable {
            /// The whole resource in this version, exactly.
            case file(version: Int)
            /// The download fails with this code.
            case failure(URLError.Code)
        }

        let name: String
        let kept: Int
        let expected: Expected
        /// Whether the final request asked for a range (a resumption that has a validator does).
        let sendsRange: Bool

        var testDescription: String { name }

        /// The validators the first response of the scenario carried (and the kept bytes were recorded with).
        var resumption: DownloadResumption {
            switch name {
            case "no-validator": DownloadResumption(offset: Int64(kept), completeLength: Int64(HostileFile.length))
            case "weak-etag": DownloadResumption(offset: Int64(kept), entityTag: "W/\"v1\"", completeLength: Int64(HostileFile.length))
            default: DownloadResumption(offset: Int64(kept), entityTag: "\"v1\"", lastModified: HostileFile.lastModified, completeLength: Int64(HostileFile.length))
            }
        }

        var keptBytes: Data { HostileFile.content(version: 1).prefix(kept) }
    }

    static let half = HostileFile.length / 2
    static let scenarios: [Scenario] = [
        Scenario(name: "honest", kept: half, expected: .file(version: 1), sendsRange: true),
        Scenario(name: "no-validator", kept: half, expected: .file(version: 1), sendsRange: false),
        Scenario(name: "weak-etag", kept: half, expected: .file(version: 1), sendsRange: false),
        Scenario(name: "ignores-range", kept: half, expected: .file(version: 1), sendsRange: true),
        Scenario(name: "changed", kept: half, expected: .file(version: 2), sendsRange: true),
        Scenario(name: "wrong-start", kept: half, expected: .file(version: 1), sendsRange: true),
        Scenario(name: "wrong-total", kept: half, expected: .file(version: 1), sendsRange: true),
        Scenario(name: "no-content-range", kept: half, expected: .file(version: 1), sendsRange: true),
        Scenario(name: "overflow-length", kept: half, expected: .file(version: 1), sendsRange: true),
        Scenario(name: "long-range", kept: half, expected: .failure(.badServerResponse), sendsRange: true),
        Scenario(name: "unasked-206", kept: half, expected: .failure(.badServerResponse), sendsRange: true),
        Scenario(name: "416-wrong-size", kept: HostileFile.length, expected: .file(version: 1), sendsRange: true),
        Scenario(name: "416-changed", kept: HostileFile.length, expected: .file(version: 2), sendsRange: true),
    ]

    /// A file holding the scenario's kept bytes.
    static func partialFile(_ scenario: Scenario) throws -> URL {
        let file = Fixtures.temporaryFile("resume-\(scenario.name)-\(UUID().uuidString)")
        try scenario.keptBytes.write(to: file)
        return file
    }

    /// Checks the outcome against the scenario: the exact bytes, or the failure with nothing saved as good.
    static func check(_ scenario: Scenario, file: URL?, error: (any Error)?, server: HostileServer) throws {
        let requests = server.requests(to: "/file/\(scenario.name)")
        #expect(requests.first?.header("Range") == (scenario.sendsRange ? "bytes=\(scenario.kept)-" : nil))
        switch scenario.expected {
        case .file(let version):
            #expect(error == nil, "\(String(describing: error))")
            let saved = try Data(contentsOf: try #require(file))
            #expect(saved.count == HostileFile.length, "\(saved.count) bytes saved")
            #expect(saved == HostileFile.content(version: version), "the saved bytes are not version \(version)")
            // A restart is a request for the whole resource, never a second range request.
            #expect(requests.dropFirst().allSatisfy { $0.header("Range") == nil })
        case .failure(let code):
            #expect((error as? URLError)?.code == code, "\(String(describing: error))")
        }
    }

    @Test(arguments: scenarios)
    func throughTheExchange(_ scenario: Scenario) async throws {
        let server = try await HostileRoutes.startServer()
        defer { Task { await server.stop() } }
        let file = try Self.partialFile(scenario)
        defer { try? FileManager.default.removeItem(at: file) }
        var configuration = ExchangeConfiguration(transport: Fixtures.transport)
        configuration.sink = .file(file, offset: Int64(scenario.kept))
        configuration.resumption = scenario.resumption
        var failure: (any Error)?
        do {
            let result = try await Exchange(request: URLRequest(url: server.url("/file/\(scenario.name)")), configuration: configuration).result()
            #expect(result.resumption == (scenario.name == "honest" ? .continued(from: Int64(scenario.kept)) : .restarted))
        } catch {
            failure = error
        }
        try Self.check(scenario, file: file, error: failure, server: server)
    }

    @Test(arguments: scenarios)
    func throughASessionDownloadTask(_ scenario: Scenario) async throws {
        let server = try await HostileRoutes.startServer()
        defer { Task { await server.stop() } }
        let partial = try Self.partialFile(scenario)
        let destination = SessionFixtures.destination()
        defer {
            try? FileManager.default.removeItem(at: partial)
            try? FileManager.default.removeItem(at: destination)
        }
        let resumeData = try DownloadResumeData(
            request: URLRequest(url: server.url("/file/\(scenario.name)")), partialFile: partial, resumption: scenario.resumption
        ).encoded()
        let manager = SessionFixtures.manager()
        defer { manager.invalidateSessionCancelingTasks(true) }
        var failure: (any Error)?
        do {
            _ = try await manager.download(resumingWith: resumeData, to: destination)
        } catch {
            failure = error
            #expect(!FileManager.default.fileExists(atPath: destination.path), "a failed download was saved")
        }
        try Self.check(scenario, file: destination, error: failure, server: server)
    }

    /// Operations keep what they received when paused; a `?stall=` first response stops after the bytes to keep.
    @Test(arguments: scenarios.filter { $0.kept < HostileFile.length }, [true, false])
    func throughAPausedOperation(_ scenario: Scenario, toFile: Bool) async throws {
        let server = try await HostileRoutes.startServer()
        defer { Task { await server.stop() } }
        // `unasked-206` answers the first request with a 206 too: nothing is received to pause in.
        let path = "/file/\(scenario.name)" + (scenario.name == "unasked-206" ? "" : "?stall=\(scenario.kept)")
        let file = Fixtures.temporaryFile("operation-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        let operation = HTTPRequestOperation(request: URLRequest(url: server.url(path), timeoutInterval: 30))
        operation.transport = Fixtures.transport
        if toFile { operation.outputFileURL = file }
        if scenario.name != "unasked-206" {
            PauseTrigger(threshold: Int64(scenario.kept)).install(on: operation)
        }
        OperationQueue().addOperation(operation)
        if scenario.name != "unasked-206" {
            try #require(await eventually { operation.isPaused || operation.isFinished })
            try #require(operation.isPaused, "\(String(describing: operation.error))")
            operation.resume()
        }
        await operation.finished()

        let requests = server.requests(to: "/file/\(scenario.name)")
        switch scenario.expected {
        case .file(let version):
            #expect(operation.error == nil, "\(String(describing: operation.error))")
            let saved = toFile ? try Data(contentsOf: file) : operation.responseData ?? Data()
            #expect(saved.count == HostileFile.length, "\(saved.count) bytes")
            #expect(saved == HostileFile.content(version: version))
            #expect(requests.dropFirst().first?.header("Range") == (scenario.sendsRange ? "bytes=\(scenario.kept)-" : nil))
        case .failure(let code):
            #expect((operation.error as? URLError)?.code == code, "\(String(describing: operation.error))")
        }
    }

    /// `courier download` broken midway (`?cut=`), then `--continue`.
    @Test(arguments: scenarios.filter { ["no-validator", "ignores-range", "changed", "wrong-start", "overflow-length", "long-range"].contains($0.name) })
    func throughCourierDownloadContinue(_ scenario: Scenario) async throws {
        let server = try await HostileRoutes.startServer()
        defer { Task { await server.stop() } }
        let folder = try Fixtures.temporaryDirectory("resume")
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = folder.appendingPathComponent("file.bin")
        let url = server.url("/file/\(scenario.name)?cut=\(scenario.kept)").absoluteString

        let broken = try await CLIRequestTests.courier(["download", url, "-o", output.path])
        #expect(broken.status == 4, "\(broken.standardError)")
        #expect(broken.standardError.contains("resume with"), "\(broken.standardError)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: output.path + ".part")) == scenario.keptBytes)

        let resumed = try await CLIRequestTests.courier(["download", url, "-o", output.path, "--continue"])
        let second = server.requests(to: "/file/\(scenario.name)").dropFirst().first
        #expect(second?.header("Range") == (scenario.sendsRange ? "bytes=\(scenario.kept)-" : nil))
        switch scenario.expected {
        case .file(let version):
            #expect(resumed.status == 0, "\(resumed.standardError)")
            #expect(resumed.standardOutput.contains("(\(HostileFile.length) bytes;"), "\(resumed.standardOutput)")
            #expect(try Data(contentsOf: output) == HostileFile.content(version: version))
        case .failure:
            #expect(resumed.status == 4, "\(resumed.standardError)")
            #expect(!FileManager.default.fileExists(atPath: output.path), "a failed download was saved")
        }
    }

    @Test func aPlainDownloadAnswered206IsNeverSaved() async throws {
        let server = try await HostileRoutes.startServer()
        defer { Task { await server.stop() } }
        let folder = try Fixtures.temporaryDirectory("206")
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = folder.appendingPathComponent("file.bin")
        let outcome = try await CLIRequestTests.courier(["download", server.url("/file/unasked-206").absoluteString, "-o", output.path])
        #expect(outcome.status == 4)
        #expect(outcome.standardError.contains("206 Partial Content to a request that asked for no range"), "\(outcome.standardError)")
        #expect(!FileManager.default.fileExists(atPath: output.path))
    }

    @Test func contentRangeIsParsedStrictly() {
        #expect(ContentRange(parsing: "bytes 0-9/10") == ContentRange(parsing: "bytes 0-9/10"))
        #expect(ContentRange(parsing: "bytes 0-9/10")?.length == 10)
        #expect(ContentRange(parsing: "bytes 5-9/5") == nil, "end beyond the total")
        #expect(ContentRange(parsing: "bytes +5-9/10") == nil)
        #expect(ContentRange(parsing: "bytes 5-/10") == nil)
        #expect(ContentRange(parsing: "bytes */*") == nil)
        #expect(ContentRange(parsing: "bytes 0-9223372036854775807/*")?.length == nil, "a length that does not fit Int64")
        #expect(ContentRange(parsing: "bytes 0-99999999999999999999/*") == nil)
    }
}
