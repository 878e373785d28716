import Foundation
import Synchronization

/// Where an exchange delivers the final response's body.
public enum ResponseSink: Sendable {
    /// Into memory: ``ExchangeResult/data``.
    case memory
    /// Into memory after the bytes an interrupted transfer kept: with a ``ExchangeConfiguration/resumption``
    /// whose response continues them (206) or has nothing more (416), ``ExchangeResult/data`` is the kept bytes
    /// followed by the new ones; any other answer replaces them.
    case memoryContinuing(Data)
    /// Into a file. Bytes before `offset` are kept (a resumed download appends after them);
    /// anything after `offset` is replaced. Bytes received before a failure stay in the file.
    case file(URL, offset: Int64)
    /// Into an output stream, which the exchange opens (unless it is open) and closes (unless its owner closes it).
    /// A stream that already holds bytes of an earlier transfer (``OutputStreamTarget/bytesWritten``) is continued
    /// after them.
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
/// task at a time. The target remembers whether the stream was opened and how many bytes it took, so a
/// later exchange (a paused operation resuming) continues it.
public final class OutputStreamTarget: Sendable {
    private struct State {
        let stream: OutputStream
        var opened = false
        var written: Int64 = 0
    }

    private let state: Mutex<State>
    /// Whether its owner, not the exchange, closes the stream (an operation closes it when it finishes, not
    /// when a paused transfer stops).
    let closedByOwner: Bool

    /// Wraps `stream`; the caller must not use it while an exchange writes to it. The exchange opens and closes it.
    public convenience init(_ stream: sending OutputStream) {
        self.init(stream, closedByOwner: false)
    }

    init(_ stream: sending OutputStream, closedByOwner: Bool) {
        self.state = Mutex(State(stream: stream))
        self.closedByOwner = closedByOwner
    }

    /// The bytes the stream has taken so far.
    public var bytesWritten: Int64 { state.withLock { $0.written } }

    /// The wrapped stream, for its owner to hand back (an operation's `outputStream` property).
    var stream: OutputStream {
        state.withLock { state in
            // Only the owner's getter reads it, never while it hands the stream to an exchange's writer.
            nonisolated(unsafe) let stream = state.stream
            return stream
        }
    }

    /// Opens the stream unless it was opened before.
    func open() {
        state.withLock { state in
            guard !state.opened else { return }
            state.opened = true
            state.stream.open()
        }
    }

    /// Whether the stream was opened.
    var isOpen: Bool { state.withLock { $0.opened } }

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
        try state.withLock { state -> Int? in
            let stream = state.stream
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
            state.written += Int64(written)
            return written
        }
    }

    private static func failure(_ reason: String) -> URLError {
        URLError(.cannotWriteToFile, userInfo: [
            NSLocalizedDescriptionKey: "Writing the response to the output stream failed: \(reason).",
        ])
    }

    /// Closes the stream (if it was opened).
    func close() {
        state.withLock { state in
            if state.opened { state.stream.close() }
        }
    }
}
