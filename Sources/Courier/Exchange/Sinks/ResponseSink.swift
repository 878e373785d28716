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

    func write(_ data: Data) throws {
        try stream.withLock { stream in
            try data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in
                guard let base = raw.bindMemory(to: UInt8.self).baseAddress else { return }
                var written = 0
                while written < raw.count {
                    let count = stream.write(base + written, maxLength: raw.count - written)
                    guard count > 0 else {
                        throw URLError(.cannotWriteToFile, userInfo: [
                            NSLocalizedDescriptionKey: "Writing the response to the output stream failed: \(stream.streamError.map { "\($0)" } ?? "the stream is full or closed").",
                        ])
                    }
                    written += count
                }
            }
        }
    }

    func close() {
        stream.withLock { $0.close() }
    }
}
