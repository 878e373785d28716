import AsyncHTTPClient
import Courier
import CourierTestServer
import Foundation
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What the benchmarks share: the server, one client of each kind, and the files.
///
/// The server is nginx when `COURIER_BENCH_URL` names one that serves `small.json`, the large
/// file named by `COURIER_BENCH_LARGE` and a `/upload` sink (what `scripts/bench-compare`
/// starts); otherwise Courier's in-process test server (`/json`, `/bytes/N`, `/post`, `/upload`),
/// whose own work then counts in the figures.
final class BenchFixture: Sendable {
    /// The size of the transfers in the macro benchmarks (64 MiB; `COURIER_BENCH_MIB` overrides).
    static let transferBytes = (ProcessInfo.processInfo.environment["COURIER_BENCH_MIB"].flatMap(Int.init) ?? 64) << 20

    struct Endpoints: Sendable {
        var small: URL
        var large: URL
        var upload: URL
        var multipartUpload: URL
    }

    private struct State: Sendable {
        var server: TestServer?
        var endpoints: Endpoints?
        var sessions: HTTPSessionManager?
        var operations: HTTPRequestOperationManager?
        var client: HTTPClient?
        var uploadFile: URL?
    }

    private let state = Mutex(State())

    /// The endpoints, the server started on first use.
    func endpoints() async throws -> Endpoints {
        if let endpoints = state.withLock({ $0.endpoints }) { return endpoints }
        let environment = ProcessInfo.processInfo.environment
        let endpoints: Endpoints
        if let text = environment["COURIER_BENCH_URL"], let base = URL(string: text), base.host != nil {
            let large = environment["COURIER_BENCH_LARGE"] ?? "large.bin"
            endpoints = Endpoints(
                small: base.appendingPathComponent("small.json"),
                large: base.appendingPathComponent(large),
                upload: base.appendingPathComponent("upload"),
                multipartUpload: base.appendingPathComponent("upload")
            )
        } else {
            let server = try await TestServer.start()
            state.withLock { $0.server = server }
            endpoints = Endpoints(
                small: server.baseURL.appendingPathComponent("json"),
                large: server.baseURL.appendingPathComponent("bytes/\(Self.transferBytes)"),
                upload: server.baseURL.appendingPathComponent("post"),
                multipartUpload: server.baseURL.appendingPathComponent("upload")
            )
        }
        state.withLock { $0.endpoints = endpoints }
        return endpoints
    }

    /// A session manager with the HTTP response serializer (bodies stay `Data`).
    func sessionManager() -> HTTPSessionManager {
        state.withLock { state in
            if let manager = state.sessions { return manager }
            let manager = HTTPSessionManager(baseURL: nil)
            manager.responseSerializer = HTTPResponseSerializer()
            manager.completionQueue = DispatchQueue(label: "bench.completion", attributes: .concurrent)
            state.sessions = manager
            return manager
        }
    }

    /// An operation manager with the HTTP response serializer.
    func operationManager() -> HTTPRequestOperationManager {
        state.withLock { state in
            if let manager = state.operations { return manager }
            let manager = HTTPRequestOperationManager(baseURL: nil)
            manager.responseSerializer = HTTPResponseSerializer()
            manager.completionQueue = DispatchQueue(label: "bench.completion", attributes: .concurrent)
            state.operations = manager
            return manager
        }
    }

    /// A raw AsyncHTTPClient, the reference.
    func httpClient() -> HTTPClient {
        state.withLock { state in
            if let client = state.client { return client }
            var configuration = HTTPClient.Configuration()
            configuration.redirectConfiguration = .disallow
            let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
            state.client = client
            return client
        }
    }

    /// A file of ``transferBytes`` pseudo-random bytes to upload, made once.
    func uploadFile() throws -> URL {
        if let file = state.withLock({ $0.uploadFile }) { return file }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("courier-bench-upload-\(getpid()).bin")
        var generator = SystemRandomNumberGenerator()
        var chunk = Data(count: 1 << 20)
        chunk.withUnsafeMutableBytes { raw in
            for index in 0..<(raw.count / 8) { raw.storeBytes(of: generator.next() as UInt64, toByteOffset: index * 8, as: UInt64.self) }
        }
        guard FileManager.default.createFile(atPath: file.path, contents: nil) else {
            throw BenchFixtureError("cannot create \(file.path)")
        }
        let handle = try FileHandle(forWritingTo: file)
        defer { try? handle.close() }
        for _ in 0..<(Self.transferBytes >> 20) { try handle.write(contentsOf: chunk) }
        state.withLock { $0.uploadFile = file }
        return file
    }

    /// A scratch path for downloads.
    func downloadTarget() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("courier-bench-download-\(getpid()).bin")
    }

    /// Stops the server and the clients, removes the files.
    func shutdown() async {
        let current = state.withLock { state -> State in
            defer { state = State() }
            return state
        }
        if let sessions = current.sessions {
            sessions.invalidateSessionCancelingTasks(true)
            try? await sessions.transport.shutdown()
        }
        try? await current.operations?.transport?.shutdown()
        try? await current.client?.shutdown()
        try? await current.server?.shutdown()
        if let file = current.uploadFile { try? FileManager.default.removeItem(at: file) }
        try? FileManager.default.removeItem(at: downloadTarget())
    }
}

/// A fixture that could not be prepared.
struct BenchFixtureError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

let fixture = BenchFixture()
