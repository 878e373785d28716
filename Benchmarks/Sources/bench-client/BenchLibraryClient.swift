import Foundation

/// One HTTP library driven the same way for every workload. Each call completes one request and
/// returns the number of body bytes that crossed (received for GETs and downloads, sent for uploads).
protocol BenchLibraryClient: Sendable {
    /// A small GET, body kept in memory.
    func get(_ url: URL) async throws -> Int
    /// A download whose bytes are counted and dropped.
    func downloadDiscarding(_ url: URL) async throws -> Int
    /// A download written to `file`.
    func download(_ url: URL, to file: URL) async throws -> Int
    /// A POST whose body streams from `file`.
    func upload(_ file: URL, to url: URL) async throws -> Int
    /// A POST of a multipart form whose one part streams from `file`.
    func uploadMultipart(_ file: URL, to url: URL) async throws -> Int
    /// Releases connections and threads.
    func shutdown() async throws
    /// Last-chance synchronous cleanup.
    func close()
}

extension BenchLibraryClient {
    func close() {}

    func uploadMultipart(_ file: URL, to url: URL) async throws -> Int {
        throw BenchUsageError("this library has no multipart upload client")
    }
}

/// A client that measures only some workloads (small GETs, and for the layer clients the discarded download); the
/// others fail with a usage error naming it.
protocol PartialBenchClient: BenchLibraryClient {
    /// The library's name in the error.
    var name: String { get }
}

extension PartialBenchClient {
    func downloadDiscarding(_ url: URL) async throws -> Int { throw refusal }
    func download(_ url: URL, to file: URL) async throws -> Int { throw refusal }
    func upload(_ file: URL, to url: URL) async throws -> Int { throw refusal }

    private var refusal: BenchUsageError { BenchUsageError("\(name) does not measure this workload") }
}

/// A response that was not 2xx.
struct BenchStatusError: Error, CustomStringConvertible {
    let status: Int
    var description: String { "unexpected HTTP status \(status)" }
}

/// The size of a file, or a clear error.
func fileSize(_ url: URL) throws -> Int {
    let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
    guard let size = attributes[.size] as? NSNumber else { throw BenchUsageError("cannot read the size of \(url.path)") }
    return size.intValue
}
