import Synchronization
import Crypto
import Foundation
import Testing
@testable import Courier
import CourierTestServer
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The in-process test servers and one transport, shared by every test in the process.
enum Fixtures {
    static let plainServer = Task { try await TestServer.start() }
    static let transport = EngineTransport()

    /// The plain server's URL for `path` (which may carry a query).
    static func url(_ path: String) async throws -> URL {
        let server = try await plainServer.value
        return try #require(URL(string: path, relativeTo: server.baseURL)?.absoluteURL)
    }

    /// Runs one exchange against the plain server.
    static func exchange(
        _ path: String,
        method: String = "GET",
        body: Data? = nil,
        timeout: TimeInterval = 30,
        configure: (inout ExchangeConfiguration) -> Void = { _ in }
    ) async throws -> ExchangeResult {
        var request = URLRequest(url: try await url(path), timeoutInterval: timeout)
        request.httpMethod = method
        request.httpBody = body
        var configuration = ExchangeConfiguration(transport: transport)
        configure(&configuration)
        return try await Exchange(request: request, configuration: configuration).result()
    }

    /// The JSON object of a memory-sink result.
    static func json(_ result: ExchangeResult) throws -> [String: Any] {
        let data = try #require(result.data)
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    /// A new, empty temporary directory named after `name`, removed by the caller.
    static func temporaryDirectory(_ name: String) throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("courier-\(name)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    /// A temporary file URL, removed by the caller.
    static func temporaryFile(_ name: String = UUID().uuidString) -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("courier-tests-\(name)")
    }
}

/// Process measurements from /proc (Linux).
enum ProcessStats {
    /// The resident set size now, in bytes.
    static func residentBytes() -> Int {
        statusValue("VmRSS") * 1024
    }

    /// The number of open file descriptors.
    static func openDescriptors() -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? -1
    }

    private static func statusValue(_ key: String) -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return -1 }
        for line in status.split(separator: "\n") where line.hasPrefix(key + ":") {
            return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") ?? -1
        }
        return -1
    }
}

/// Samples the resident set size until stopped; the maximum seen is the peak of the measured work.
final class ResidentSizeSampler: Sendable {
    private let peak = Atomic<Int>(0)
    private let running = Atomic<Bool>(true)

    init() {
        Thread.detachNewThread { [self] in
            while running.load(ordering: .relaxed) {
                let rss = ProcessStats.residentBytes()
                if rss > peak.load(ordering: .relaxed) { peak.store(rss, ordering: .relaxed) }
                usleep(20_000)
            }
        }
    }

    /// Stops sampling and returns the peak in bytes.
    func stop() -> Int {
        running.store(false, ordering: .relaxed)
        return max(peak.load(ordering: .relaxed), ProcessStats.residentBytes())
    }
}

extension Data {
    var sha256Hex: String { SHA256.hash(data: self).map { String(format: "%02x", $0) }.joined() }
}

func sha256Hex(ofFile url: URL) throws -> String {
    let handle = try FileHandle(forReadingFrom: url)
    defer { try? handle.close() }
    var hasher = SHA256()
    while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
        hasher.update(data: chunk)
    }
    return hasher.finalize().map { String(format: "%02x", $0) }.joined()
}
