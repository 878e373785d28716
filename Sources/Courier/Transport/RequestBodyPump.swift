import AsyncHTTPClient
import Foundation
import NIOCore
import NIOFoundationCompat
import NIOPosix
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Feeds a ``HTTPRequestBody`` to AsyncHTTPClient's stream writer.
///
/// Each chunk is produced only after the writer has accepted the previous one, and the writer
/// holds its future while the channel is not writable, so the producer never runs ahead of the
/// socket by more than one chunk plus the channel's write buffer. Blocking reads (files, input
/// streams) run on NIO's thread pool, never on an event loop.
enum RequestBodyPump {
    /// The size of each chunk read from a file or a stream, and of each slice of in-memory data.
    static let chunkSize = 256 * 1024

    /// The size of each file region handed to the socket when a file is sent with `sendfile(2)`.
    static let fileRegionSize = 1 << 20

    /// Starts writing the whole body, in order.
    ///
    /// Bytes already in memory are written from `loop` (the engine calls its body stream there): no task, no thread
    /// hop, and the engine hears the body's end as soon as it has taken the last part. Anything read with blocking
    /// calls or produced asynchronously is pumped from a task; for a body of known length the engine still hears the
    /// end as soon as it has taken the declared length (`endingAtDeclaredLength(_:length:on:)`).
    /// - Returns: A future that succeeds once the writer has taken the whole body.
    static func start(
        _ body: HTTPRequestBody,
        into writer: HTTPClient.Body.StreamWriter,
        on loop: any EventLoop,
        threadPool: NIOThreadPool,
        fileRegions: FileRegionLease?
    ) -> EventLoopFuture<Void> {
        if case .data(let data) = body.source { return write(data, into: writer, on: loop) }
        guard let length = body.length else {
            return loop.makeFutureWithTask {
                try await pump(body, into: writer, on: loop, threadPool: threadPool, fileRegions: fileRegions)
            }
        }
        let ended = loop.makePromise(of: Void.self)
        let counting = endingAtDeclaredLength(writer, length: length, on: ended)
        loop.makeFutureWithTask {
            try await pump(body, into: counting, on: loop, threadPool: threadPool, fileRegions: fileRegions)
        }.cascade(to: ended)
        return ended.futureResult
    }

    /// `writer`, which also completes `ended` as soon as it has taken `length` bytes.
    ///
    /// The engine hears a streamed body's end when the future its stream returned completes. From a task that is a
    /// thread hop after the last write, plus whatever the producer does before it returns (an `AsyncStream` finished
    /// after its last element). A server that has read the declared length can answer and close the connection within
    /// that time, and the engine fails a request whose connection closes while its body still streams
    /// (`remoteConnectionClosed`), even with the answer in full. The declared length is the end:
    /// - a part that goes past it is the engine's to refuse (`bodyLengthMismatch`, the request fails);
    /// - a part after it is refused here with the same error, for the producer: the request has carried its declared
    ///   length, and its answer stands;
    /// - a producer that returns short, or fails, completes `ended` with the engine's length check or its error.
    static func endingAtDeclaredLength(
        _ writer: HTTPClient.Body.StreamWriter, length: Int64, on ended: EventLoopPromise<Void>
    ) -> HTTPClient.Body.StreamWriter {
        let written = Atomic<Int64>(0)
        return HTTPClient.Body.StreamWriter { part in
            let count = Int64(part.readableBytes)
            let total = written.add(count, ordering: .relaxed).newValue
            if total - count >= length {
                let loop = ended.futureResult.eventLoop
                return count == 0 ? loop.makeSucceededVoidFuture() : loop.makeFailedFuture(HTTPClientError.bodyLengthMismatch)
            }
            guard total == length else { return writer.write(part) }
            // The last part is written from the loop, and `ended` chained to its write in the same turn: chained from
            // here (a task's thread), a write that had already completed would complete `ended` one loop turn later,
            // and a server's close could come first (seen under AddressSanitizer).
            let loop = ended.futureResult.eventLoop
            return loop.flatSubmit {
                let taken = writer.write(part)
                taken.cascade(to: ended)
                return taken
            }
        }
    }

    /// Writes the whole body, in order, then returns.
    /// - Parameter fileRegions: When given, a file goes to the socket as file regions
    ///   (`sendfile(2)`, no copy through user space) whose handle the lease keeps open until the
    ///   request ends. Only for plain-text connections: TLS must read the bytes to encrypt them.
    private static func pump(
        _ body: HTTPRequestBody,
        into writer: HTTPClient.Body.StreamWriter,
        on loop: any EventLoop,
        threadPool: NIOThreadPool,
        fileRegions: FileRegionLease? = nil
    ) async throws {
        switch body.source {
        case .file(let url) where fileRegions != nil:
            if let fileRegions { try await pumpFileRegions(url, into: writer, lease: fileRegions) }
        case .data(let data):
            try await write(data, into: writer, on: loop).get()
        case .file(let url):
            try await pumpBlocking(try FileChunkReader(url: url), into: writer, threadPool: threadPool)
        case .inputStream(let makeStream):
            let stream = try makeStream()
            if let fileRegions, let segments = (stream as? MultipartBodyStream)?.directSegments {
                try await pumpSegments(segments, into: writer, lease: fileRegions)
            } else {
                try await pumpBlocking(InputStreamChunkReader(stream), into: writer, threadPool: threadPool)
            }
        case .producer(let produce):
            try await produce { chunk in
                guard !chunk.isEmpty else { return }
                try await writer.write(.byteBuffer(ByteBuffer(data: chunk))).get()
            }
        }
    }

    /// Writes bytes already in memory, one slice of ``chunkSize`` after the writer has taken the one before, without
    /// leaving the event loop the writer calls back on.
    /// - Returns: A future that succeeds once the writer has taken the last slice.
    static func write(
        _ data: Data, from offset: Data.Index? = nil, into writer: HTTPClient.Body.StreamWriter, on loop: any EventLoop
    ) -> EventLoopFuture<Void> {
        let start = offset ?? data.startIndex
        guard start < data.endIndex else { return loop.makeSucceededVoidFuture() }
        let end = min(start + chunkSize, data.endIndex)
        let written = writer.write(.byteBuffer(ByteBuffer(bytes: data[start..<end])))
        guard end < data.endIndex else { return written }
        return written.flatMap { write(data, from: end, into: writer, on: loop) }
    }

    /// Sends a multipart body segment by segment: boundaries and in-memory parts as buffers,
    /// file parts as file regions.
    private static func pumpSegments(
        _ segments: [MultipartBodyLayout.Segment],
        into writer: HTTPClient.Body.StreamWriter,
        lease: FileRegionLease
    ) async throws {
        for segment in segments {
            switch segment {
            case .bytes(let data):
                if !data.isEmpty { try await writer.write(.byteBuffer(ByteBuffer(data: data))).get() }
            case .file(let url, let length):
                try await pumpFileRegions(url, length: Int(length), into: writer, lease: lease)
            case .stream:
                throw URLError(.cannotDecodeRawData, userInfo: [
                    NSLocalizedDescriptionKey: "A multipart stream part cannot be sent as a file region.",
                ])
            }
        }
    }

    /// Sends a file as consecutive file regions, the next queued only once the writer accepts
    /// more (the channel is writable), so nothing is read ahead of the socket and no bytes are
    /// copied through user space.
    /// - Parameter length: The bytes to send from the start of the file; default: the whole file.
    private static func pumpFileRegions(
        _ url: URL, length declared: Int? = nil, into writer: HTTPClient.Body.StreamWriter, lease: FileRegionLease
    ) async throws {
        let available = Int(try FileBodyInfo.length(of: url))
        let length = declared ?? available
        guard available >= length else {
            throw URLError(.cannotDecodeRawData, userInfo: [
                NSURLErrorFailingURLErrorKey: url,
                NSLocalizedDescriptionKey: "\(url.path) is shorter than when the body was made (\(available) of \(length) bytes).",
            ])
        }
        let descriptor = open(url.path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw URLError(.noPermissionsToReadFile, userInfo: [NSURLErrorFailingURLErrorKey: url])
        }
        let handle = NIOFileHandle(_deprecatedTakingOwnershipOfDescriptor: descriptor)
        lease.keep(handle)
        var offset = 0
        while offset < length {
            let end = min(offset + fileRegionSize, length)
            try await writer.write(.fileRegion(FileRegion(fileHandle: handle, readerIndex: offset, endIndex: end))).get()
            offset = end
        }
    }

    private static func pumpBlocking(
        _ reader: some BlockingChunkReader,
        into writer: HTTPClient.Body.StreamWriter,
        threadPool: NIOThreadPool
    ) async throws {
        defer { reader.close() }
        while true {
            let chunk = try await threadPool.runIfActive { try reader.readChunk(maxLength: chunkSize) }
            guard let chunk else { return }
            try await writer.write(.byteBuffer(chunk)).get()
        }
    }
}

/// A source read with blocking calls, one chunk at a time, from one thread at a time.
protocol BlockingChunkReader: Sendable {
    /// The next chunk, or `nil` at the end.
    func readChunk(maxLength: Int) throws -> ByteBuffer?
    /// Releases the source.
    func close()
}

/// Reads a file with `read(2)` straight into a `ByteBuffer`.
final class FileChunkReader: BlockingChunkReader {
    private let descriptor: Mutex<Int32>
    private let url: URL

    init(url: URL) throws {
        _ = try FileBodyInfo.length(of: url)
        let fd = open(url.path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            throw URLError(.noPermissionsToReadFile, userInfo: [NSURLErrorFailingURLErrorKey: url])
        }
        self.url = url
        self.descriptor = Mutex(fd)
    }

    func readChunk(maxLength: Int) throws -> ByteBuffer? {
        try descriptor.withLock { fd in
            guard fd >= 0 else { return nil }
            var failed = false
            var buffer = ByteBufferAllocator().buffer(capacity: maxLength)
            let count = buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: maxLength) { pointer in
                var result: Int
                repeat {
                    result = read(fd, pointer.baseAddress, maxLength)
                } while result < 0 && errno == EINTR
                failed = result < 0
                return max(result, 0)
            }
            if failed {
                throw URLError(.cannotOpenFile, userInfo: [
                    NSURLErrorFailingURLErrorKey: url,
                    NSLocalizedDescriptionKey: "Reading the request body file failed (errno \(errno)).",
                ])
            }
            return count == 0 ? nil : buffer
        }
    }

    func close() {
        descriptor.withLock { fd in
            if fd >= 0 { closeDescriptor(fd) }
            fd = -1
        }
    }

    deinit { close() }
}

/// Reads an `InputStream` (opened on first read, closed at the end).
final class InputStreamChunkReader: BlockingChunkReader {
    // `InputStream` is not Sendable: the Mutex confines it, and the pump reads one chunk at a time.
    private let stream: Mutex<(stream: InputStream, opened: Bool)>

    init(_ stream: sending InputStream) {
        self.stream = Mutex((stream, false))
    }

    func readChunk(maxLength: Int) throws -> ByteBuffer? {
        try stream.withLock { state in
            if !state.opened {
                state.stream.open()
                state.opened = true
            }
            var buffer = ByteBufferAllocator().buffer(capacity: maxLength)
            var failed = false
            let count = buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: maxLength) { pointer in
                guard let base = pointer.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return 0 }
                let result = state.stream.read(base, maxLength: maxLength)
                failed = result < 0
                return max(result, 0)
            }
            if failed {
                let reason = state.stream.streamError.map { "\($0)" } ?? "unknown error"
                throw URLError(.cannotDecodeRawData, userInfo: [NSLocalizedDescriptionKey: "The request body stream failed: \(reason)"])
            }
            return count == 0 ? nil : buffer
        }
    }

    func close() {
        stream.withLock { $0.stream.close() }
    }
}

/// Closes a file descriptor, whatever the platform's C library is called.
func closeDescriptor(_ fd: Int32) {
    #if canImport(Glibc)
    _ = Glibc.close(fd)
    #elseif canImport(Darwin)
    _ = Darwin.close(fd)
    #endif
}
