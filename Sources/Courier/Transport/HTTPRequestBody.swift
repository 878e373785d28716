import Synchronization
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A request body: in memory, a file, an `InputStream` or an asynchronous sequence of chunks.
///
/// The transport streams every kind with backpressure and sends an exact `Content-Length` when
/// ``length`` is known, `Transfer-Encoding: chunked` otherwise.
///
/// Its earlier name, `RequestBody`, stays a deprecated alias for one release: Hummingbird, whose users import it
/// beside Courier, has a public `RequestBody` too.
public struct HTTPRequestBody: Sendable {
    /// Where the bytes come from.
    public enum Source: Sendable {
        /// Bytes in memory.
        case data(Data)
        /// The contents of a file, read in chunks as the socket accepts them.
        case file(URL)
        /// A stream, created by the factory each time the body must be (re)sent. A factory that
        /// cannot make a fresh stream throws `URLError(.requestBodyStreamExhausted)`.
        case inputStream(@Sendable () throws -> InputStream)
        /// An asynchronous producer: it calls `write` for each chunk, in order, and returns at the end.
        /// `write` suspends while the socket cannot take more (backpressure).
        case producer(@Sendable (_ write: @Sendable (Data) async throws -> Void) async throws -> Void)
    }

    /// Where the bytes come from.
    public let source: Source
    /// The exact length in bytes, or `nil` when unknown (sent chunked).
    public let length: Int64?

    /// Creates a body from any source.
    public init(source: Source, length: Int64?) {
        self.source = source
        self.length = length
    }

    /// A body held in memory.
    public static func data(_ data: Data) -> HTTPRequestBody {
        HTTPRequestBody(source: .data(data), length: Int64(data.count))
    }

    /// A body read from a file as it is sent.
    /// - Throws: `URLError(.fileDoesNotExist)` when the file is missing, `URLError(.noPermissionsToReadFile)`
    ///   when it cannot be read, `URLError(.fileIsDirectory)` for a directory.
    public static func file(_ url: URL) throws -> HTTPRequestBody {
        HTTPRequestBody(source: .file(url), length: try FileBodyInfo.length(of: url))
    }

    /// A body read from an input stream. The stream can be sent once; a redirect or
    /// authentication retry that needs the body again fails with `URLError(.requestBodyStreamExhausted)`
    /// unless the exchange has a new-body-stream provider.
    /// - Parameters:
    ///   - stream: The stream, not yet opened.
    ///   - length: Its exact length, or `nil` to send it chunked. Default `nil`.
    public static func inputStream(_ stream: sending InputStream, length: Int64? = nil) -> HTTPRequestBody {
        let once = OneShotStream(stream)
        return HTTPRequestBody(source: .inputStream({ try once.take() }), length: length)
    }

    /// A body produced by an asynchronous sequence of `Data` chunks.
    /// - Parameters:
    ///   - sequence: The chunks. It is iterated once per send.
    ///   - length: The exact total length, or `nil` to send it chunked. Default `nil`.
    public static func asyncSequence<Chunks: AsyncSequence & Sendable>(
        _ sequence: Chunks,
        length: Int64? = nil
    ) -> HTTPRequestBody where Chunks.Element == Data {
        HTTPRequestBody(
            source: .producer({ write in
                for try await chunk in sequence { try await write(chunk) }
            }),
            length: length
        )
    }

    /// The body a `URLRequest` carries: `httpBody`, or `httpBodyStream` with the length taken from
    /// its `Content-Length` header (chunked when absent). `nil` when the request has no body.
    public init?(request: URLRequest) {
        if let data = request.httpBody {
            self = .data(data)
        } else if let stream = request.httpBodyStream {
            let length = request.value(forHTTPHeaderField: "Content-Length").flatMap { Int64($0) }
            if let multipart = stream as? MultipartBodyStream {
                // A multipart body is generated from its parts, so every send gets a fresh stream.
                let exactLength = multipart.contentLength
                let replayable = ReplayableMultipartStream(multipart)
                self.init(source: .inputStream({ try replayable.make() }), length: exactLength)
            } else {
                let once = OneShotStream(stream)
                self.init(source: .inputStream({ try once.take() }), length: length)
            }
        } else {
            return nil
        }
    }
}

/// Hands out one `InputStream` once; a second request means the body must be replayed, which
/// a plain stream cannot do.
private final class OneShotStream: Sendable {
    private let stream: Mutex<InputStream?>

    init(_ stream: sending InputStream) {
        self.stream = Mutex(stream)
    }

    func take() throws -> InputStream {
        // `InputStream` is not Sendable; the Mutex hands it out exactly once, so no two
        // threads ever share it.
        let taken: InputStream? = stream.withLock { slot in
            let value = slot
            slot = nil
            return value
        }
        guard let taken else { throw URLError(.requestBodyStreamExhausted) }
        return taken
    }
}

/// Makes a fresh multipart stream from the same parts for each send.
private final class ReplayableMultipartStream: Sendable {
    // `MultipartBodyStream` is an `InputStream` (not Sendable): the Mutex confines the template,
    // which is only asked for replacements and never read.
    private let template: Mutex<MultipartBodyStream>

    init(_ template: sending MultipartBodyStream) {
        self.template = Mutex(template)
    }

    func make() throws -> InputStream {
        try template.withLock { try $0.makeReplacement() }
    }
}

/// File checks shared by file bodies and file sinks.
enum FileBodyInfo {
    /// The size of a regular, readable file, or a `URLError` saying why it cannot be sent.
    static func length(of url: URL) throws -> Int64 {
        guard url.isFileURL else { throw URLError(.unsupportedURL, userInfo: [NSURLErrorFailingURLErrorKey: url]) }
        guard let status = FileStatus(path: url.path) else {
            throw URLError(.fileDoesNotExist, userInfo: [NSURLErrorFailingURLErrorKey: url])
        }
        guard status.kind != .directory else {
            throw URLError(.fileIsDirectory, userInfo: [NSURLErrorFailingURLErrorKey: url])
        }
        guard FileManager.default.isReadableFile(atPath: url.path) else {
            throw URLError(.noPermissionsToReadFile, userInfo: [NSURLErrorFailingURLErrorKey: url])
        }
        return status.size
    }
}

/// ``HTTPRequestBody``'s earlier name, kept for one release.
@available(*, deprecated, renamed: "HTTPRequestBody", message: "renamed to avoid colliding with Hummingbird's RequestBody")
public typealias RequestBody = HTTPRequestBody
