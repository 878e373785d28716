import AsyncHTTPClient
import Foundation
import NIOCore
import NIOPosix
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Raw AsyncHTTPClient, the reference: its async API for GETs, discarded downloads and streamed
/// uploads (a file read 128 KiB at a time into `.stream`), and its `FileDownloadDelegate` for
/// downloads to a file.
final class AsyncHTTPClientClient: BenchLibraryClient {
    private let client = makeHTTPClient()

    /// The engine as the raw clients use it: NIO's shared event loops, redirects not followed (as Courier's transport).
    static func makeHTTPClient() -> HTTPClient {
        var configuration = HTTPClient.Configuration()
        configuration.redirectConfiguration = .disallow
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    func get(_ url: URL) async throws -> Int {
        let response = try await client.execute(HTTPClientRequest(url: url.absoluteString), timeout: .seconds(60))
        guard (200..<300).contains(response.status.code) else { throw BenchStatusError(status: Int(response.status.code)) }
        return try await response.body.collect(upTo: 1 << 24).readableBytes
    }

    func downloadDiscarding(_ url: URL) async throws -> Int {
        let response = try await client.execute(HTTPClientRequest(url: url.absoluteString), timeout: .hours(1))
        guard (200..<300).contains(response.status.code) else { throw BenchStatusError(status: Int(response.status.code)) }
        var count = 0
        for try await buffer in response.body { count += buffer.readableBytes }
        return count
    }

    func download(_ url: URL, to file: URL) async throws -> Int {
        let delegate = try FileDownloadDelegate(path: file.path)
        let request = try HTTPClient.Request(url: url.absoluteString)
        let progress = try await client.execute(request: request, delegate: delegate).futureResult.get()
        return progress.receivedBytes
    }

    func upload(_ file: URL, to url: URL) async throws -> Int {
        let size = try fileSize(file)
        var request = HTTPClientRequest(url: url.absoluteString)
        request.method = .POST
        request.body = .stream(FileChunks(path: file.path, chunkSize: 128 * 1024), length: .known(Int64(size)))
        let response = try await client.execute(request, timeout: .hours(1))
        guard (200..<300).contains(response.status.code) else { throw BenchStatusError(status: Int(response.status.code)) }
        _ = try await response.body.collect(upTo: 1 << 20)
        return size
    }

    func shutdown() async throws {
        try await client.shutdown()
    }
}

/// A file as an async sequence of `ByteBuffer`s, read with blocking `read(2)` as the body asks.
struct FileChunks: AsyncSequence, Sendable {
    typealias Element = ByteBuffer
    let path: String
    let chunkSize: Int

    func makeAsyncIterator() -> Iterator { Iterator(path: path, chunkSize: chunkSize) }

    struct Iterator: AsyncIteratorProtocol {
        let path: String
        let chunkSize: Int
        var descriptor: Int32 = -1

        init(path: String, chunkSize: Int) {
            self.path = path
            self.chunkSize = chunkSize
        }

        mutating func next() async throws -> ByteBuffer? {
            if descriptor < 0 {
                descriptor = open(path, O_RDONLY)
                guard descriptor >= 0 else { throw BenchUsageError("cannot open \(path)") }
            }
            var buffer = ByteBufferAllocator().buffer(capacity: chunkSize)
            let fd = descriptor
            let count = buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: chunkSize) { pointer in
                Swift.max(read(fd, pointer.baseAddress, chunkSize), 0)
            }
            if count == 0 {
                _ = close(fd)
                descriptor = -1
                return nil
            }
            return buffer
        }
    }
}
