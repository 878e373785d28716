import Foundation

/// The `InputStream` carrying a multipart body in `URLRequest.httpBodyStream`.
///
/// The body is produced from the parts while it is read: boundaries and headers from memory,
/// files read in chunks of at most `maxLength` bytes, streams read through. Memory use does not
/// depend on the size of the parts. ``contentLength`` is exact and matches the request's
/// `Content-Length`.
///
/// Transport contract: call `open()`, then `read(_:maxLength:)` while `hasBytesAvailable`, then
/// `close()`, from any one thread at a time. A read that fails (a file shrank, a stream ended
/// early) returns -1 and sets `streamError` to a ``RequestSerializationError``. For a redirect
/// (307/308) or an authentication retry, get a fresh stream with ``makeReplacement()``.
public final class MultipartBodyStream: InputStream {
    private struct State {
        var cursor: MultipartBodyCursor
        var status: Stream.Status = .notOpen
        var error: (any Error)?
        var fileHandle: FileHandle?
        var openedStream: InputStream?
    }

    private let layout: MultipartBodyLayout
    private let throttle: MultipartThrottle
    /// Guards `state`: the transport reads on one thread, but status and errors may be queried
    /// from others. (A plain lock: the state holds non-Sendable file handles and streams.)
    private let lock = NSLock()
    private var state: State

    /// The exact number of bytes the stream produces.
    public var contentLength: Int64 { layout.contentLength }
    /// The parts the body is made from, in order (for ``Foundation/URLRequest/cURLDescription(options:)``).
    var parts: [MultipartPart] { layout.parts }

    init(layout: MultipartBodyLayout, throttle: MultipartThrottle) {
        self.layout = layout
        self.throttle = throttle
        self.state = State(cursor: MultipartBodyCursor(lengths: layout.segments.map(\.length)))
        super.init(data: Data())
    }

    /// The body's segments, for a transport that can send them without reading through this
    /// stream (files with `sendfile(2)`): `nil` when the body is throttled or has a stream part.
    var directSegments: [MultipartBodyLayout.Segment]? {
        guard throttle == MultipartThrottle() else { return nil }
        for segment in layout.segments {
            if case .stream = segment { return nil }
        }
        return layout.segments
    }

    /// A new stream producing the same body from the start.
    ///
    /// - Throws: ``RequestSerializationError/bodyStreamNotReplayable`` when the form has an
    ///   `InputStream` part that has already been opened.
    public func makeReplacement() throws -> MultipartBodyStream {
        for case .stream(let stream, _) in layout.segments where stream.streamStatus != .notOpen {
            throw RequestSerializationError.bodyStreamNotReplayable
        }
        return MultipartBodyStream(layout: layout, throttle: throttle)
    }

    /// Opens the stream; reading starts at the first byte.
    public override func open() {
        withState { state in
            if state.status == .notOpen { state.status = state.cursor.isAtEnd ? .atEnd : .open }
        }
    }

    /// Closes the stream and any file or stream part it was reading.
    public override func close() {
        withState { state in
            Self.releaseCurrentSource(&state)
            state.status = .closed
        }
    }

    /// Whether a read can produce bytes (open and not at the end).
    public override var hasBytesAvailable: Bool {
        withState { $0.status == .open && !$0.cursor.isAtEnd }
    }

    /// `.notOpen`, `.open`, `.atEnd`, `.closed` or `.error`.
    public override var streamStatus: Stream.Status { withState { $0.status } }

    /// The error that stopped the stream, if any.
    public override var streamError: (any Error)? { withState { $0.error } }

    /// Not supported: the body is produced on demand, so there is no buffer to expose.
    public override func getBuffer(_ buffer: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>, length len: UnsafeMutablePointer<Int>) -> Bool {
        false
    }

    /// Fills `buffer` with up to `len` bytes (at most the packet size when throttled, followed
    /// by the throttle delay). Returns the count, 0 at the end, -1 on error.
    public override func read(_ buffer: UnsafeMutablePointer<UInt8>, maxLength len: Int) -> Int {
        let limit = min(len, throttle.packetSize)
        let result: Int = withState { state in
            guard state.status == .open else { return state.status == .atEnd ? 0 : -1 }
            var total = 0
            do {
                while total < limit, !state.cursor.isAtEnd {
                    let count = try readFromCurrentSegment(&state, into: buffer + total, count: state.cursor.readable(limit: limit - total))
                    if state.cursor.advance(by: count) { Self.releaseCurrentSource(&state) }
                    total += count
                }
            } catch {
                Self.releaseCurrentSource(&state)
                state.error = error
                state.status = .error
                return -1
            }
            if state.cursor.isAtEnd { state.status = .atEnd }
            return total
        }
        if result > 0, throttle.delay > 0 { Thread.sleep(forTimeInterval: throttle.delay) }
        return result
    }

    private func withState<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&state)
    }

    /// Reads between 1 and `count` bytes of the current segment into `buffer`.
    private func readFromCurrentSegment(_ state: inout State, into buffer: UnsafeMutablePointer<UInt8>, count: Int) throws -> Int {
        let segment = layout.segments[state.cursor.segment]
        let offset = Int(state.cursor.offset)
        switch segment {
        case .bytes(let data):
            data.withUnsafeBytes { raw in
                guard let base = raw.baseAddress else { return }
                UnsafeMutableRawPointer(buffer).copyMemory(from: base + offset, byteCount: count)
            }
            return count
        case .file(let url, _):
            if state.fileHandle == nil {
                do {
                    state.fileHandle = try FileHandle(forReadingFrom: url)
                } catch {
                    throw RequestSerializationError.unreadableFile(url, reason: String(describing: error))
                }
            }
            guard let handle = state.fileHandle else { throw RequestSerializationError.unreadableFile(url, reason: "not open") }
            let chunk: Data?
            do {
                chunk = try handle.read(upToCount: count)
            } catch {
                throw RequestSerializationError.unreadableFile(url, reason: String(describing: error))
            }
            guard let chunk, !chunk.isEmpty else {
                throw RequestSerializationError.multipartPartShorterThanAnnounced("file \(url.path)")
            }
            chunk.copyBytes(to: buffer, count: chunk.count)
            return chunk.count
        case .stream(let stream, _):
            if state.openedStream == nil {
                stream.open()
                state.openedStream = stream
            }
            let read = stream.read(buffer, maxLength: count)
            guard read > 0 else {
                // Only ask for `streamError` after a failed read: on Linux, reading the property
                // of a Foundation stream that has no error traps.
                let reason = read < 0 ? stream.streamError.map { String(describing: $0) } ?? "read failed" : "the stream ended early"
                throw RequestSerializationError.multipartPartShorterThanAnnounced("input stream (\(reason))")
            }
            return read
        }
    }

    private static func releaseCurrentSource(_ state: inout State) {
        if let handle = state.fileHandle {
            try? handle.close()
            state.fileHandle = nil
        }
        if let stream = state.openedStream {
            stream.close()
            state.openedStream = nil
        }
    }
}
