import Foundation
import Synchronization

/// Where an exchange delivers the final response's body.
public enum ResponseSink: Sendable {
    /// Into memory: ``ExchangeResult/data``.
    case memory
    /// Into a file. Bytes before `offset` are kept (a resumed download appends after them);
    /// anything after `offset` is replaced. Bytes received before a failure stay in the file.
    case file(URL, offset: Int64)
    /// Into an output stream, which the exchange opens and closes.
    case outputStream(OutputStreamTarget)
    /// Handed to the caller: ``ExchangeResult/body`` streams it, with backpressure.
    case stream

    /// A file sink that starts the file afresh.
    public static func file(_ url: URL) -> ResponseSink { .file(url, offset: 0) }

    /// An output stream sink.
    public static func outputStream(_ stream: sending OutputStream) -> ResponseSink { .outputStream(OutputStreamTarget(stream)) }
}

/// An `OutputStream` handed to an exchange.
///
/// `OutputStream` is not Sendable: the Mutex confines it, and the exchange writes to it from one
/// task at a time.
public final class OutputStreamTarget: Sendable {
    private let stream: Mutex<OutputStream>

    /// Wraps `stream`; the caller must not use it while an exchange writes to it.
    public init(_ stream: sending OutputStream) {
        self.stream = Mutex(stream)
    }

    func open() {
        stream.withLock { $0.open() }
    }

    /// Writes all of `data`, only while the stream has space: when it has none (a consumer on the
    /// other end is behind), the task waits and asks again, so the stream is never written full.
    ///
    /// - Throws: the stream's own `streamError` when it failed (as AFNetworking reports it), or
    ///   `URLError(.cannotWriteToFile)` when it is closed or accepts no more bytes.
    func write(_ data: Data) async throws {
        var offset = 0
        while offset < data.count {
            if let written = try writeIfSpace(data, from: offset) {
                offset += written
            } else {
                // OutputStream signals space only through run-loop events, and this writer runs on a
                // task without a run loop: ask again shortly instead.
                try await Task.sleep(for: .milliseconds(1))
            }
        }
    }

    /// Writes what the stream takes of `data[offset...]` and returns the count, or `nil` when it has no space now.
    private func writeIfSpace(_ data: Data, from offset: Int) throws -> Int? {
        try stream.withLock { stream -> Int? in
            switch stream.streamStatus {
            case .error:
                throw stream.streamError ?? Self.failure("the stream failed")
            case .notOpen, .closed, .atEnd:
                throw Self.failure("the stream is not open")
            default:
                break
            }
            guard stream.hasSpaceAvailable else { return nil }
            let written = data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) -> Int in
                guard let base = raw.bindMemory(to: UInt8.self).baseAddress else { return 0 }
                return stream.write(base + offset, maxLength: raw.count - offset)
            }
            if written < 0 { throw stream.streamError ?? Self.failure("the stream failed") }
            if written == 0 { throw Self.failure("the stream accepts no more bytes") }
            return written
        }
    }

    private static func failure(_ reason: String) -> URLError {
        URLError(.cannotWriteToFile, userInfo: [
            NSLocalizedDescriptionKey: "Writing the response to the output stream failed: \(reason).",
        ])
    }

    func close() {
        stream.withLock { $0.close() }
    }
}
