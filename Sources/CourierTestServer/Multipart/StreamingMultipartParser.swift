import Foundation
import NIOCore

/// An incremental `multipart/form-data` (RFC 7578 / RFC 2046) parser over a stream of buffers.
///
/// Memory stays bounded by the largest input chunk plus one delimiter: part bodies are emitted as
/// slices as soon as they cannot be the start of a delimiter, so delimiters split across chunks at
/// any position are recognised.
struct StreamingMultipartParser {
    /// What the parser found in the input fed so far.
    enum Event: Equatable {
        /// A part starts; its headers are complete.
        case partBegin(MultipartPartHead)
        /// Bytes of the current part's body (never empty, never containing a delimiter).
        case partData(ByteBuffer)
        /// The current part's body is complete.
        case partEnd
        /// The closing delimiter was seen; anything after it is ignored.
        case end
    }

    /// Why the input is not valid multipart.
    enum ParseError: Error, Equatable {
        case invalidBoundary
        case headersTooLarge
        case malformedHeaders
        case malformedDelimiter
        case truncated
    }

    private enum State {
        case preamble, afterDelimiter, headers, body, epilogue
    }

    /// The longest header block accepted for one part.
    static let maxHeaderBytes = 16 * 1024

    private let delimiter: [UInt8]
    private var pending: ByteBuffer
    private var state = State.preamble

    /// - Parameter boundary: the `boundary` parameter of the `Content-Type` (1 to 70 characters).
    init(boundary: String) throws {
        guard (1...70).contains(boundary.utf8.count), !boundary.hasSuffix(" ") else {
            throw ParseError.invalidBoundary
        }
        self.delimiter = Array("\r\n--\(boundary)".utf8)
        // A virtual CRLF in front lets the first delimiter be matched like every other one.
        self.pending = ByteBuffer(bytes: [0x0D, 0x0A])
    }

    /// True once the closing delimiter has been parsed.
    var isComplete: Bool { state == .epilogue }

    /// Feeds the next chunk of the body and returns the events it completes.
    mutating func feed(_ chunk: ByteBuffer) throws -> [Event] {
        if state == .epilogue { return [] }
        pending.discardReadBytes()
        var chunk = chunk
        pending.writeBuffer(&chunk)
        var events: [Event] = []
        while try step(into: &events) {}
        return events
    }

    /// Signals the end of the input; throws when the closing delimiter never came.
    func finish() throws {
        guard state == .epilogue else { throw ParseError.truncated }
    }

    /// Makes one step of progress; returns false when more input is needed.
    private mutating func step(into events: inout [Event]) throws -> Bool {
        switch state {
        case .preamble, .body:
            let inBody = state == .body
            if let index = Self.firstIndex(of: delimiter, in: pending) {
                let data = pending.readSlice(length: index)
                if inBody, let data, data.readableBytes > 0 { events.append(.partData(data)) }
                pending.moveReaderIndex(forwardBy: delimiter.count)
                if inBody { events.append(.partEnd) }
                state = .afterDelimiter
                return true
            }
            let safe = pending.readableBytes - (delimiter.count - 1)
            if safe > 0, let data = pending.readSlice(length: safe), inBody {
                events.append(.partData(data))
            }
            return false

        case .afterDelimiter:
            while let byte = pending.getInteger(at: pending.readerIndex, as: UInt8.self), byte == 0x20 || byte == 0x09 {
                pending.moveReaderIndex(forwardBy: 1)
            }
            guard let pair = pending.getBytes(at: pending.readerIndex, length: 2) else { return false }
            pending.moveReaderIndex(forwardBy: 2)
            if pair == [0x2D, 0x2D] {
                state = .epilogue
                pending.clear()
                events.append(.end)
                return false
            }
            guard pair == [0x0D, 0x0A] else { throw ParseError.malformedDelimiter }
            state = .headers
            return true

        case .headers:
            let headerBytes: ByteBuffer
            if pending.getBytes(at: pending.readerIndex, length: 2) == [0x0D, 0x0A] {
                headerBytes = ByteBuffer()
                pending.moveReaderIndex(forwardBy: 2)
            } else if let index = Self.firstIndex(of: [0x0D, 0x0A, 0x0D, 0x0A], in: pending) {
                guard index <= Self.maxHeaderBytes, let bytes = pending.readSlice(length: index) else {
                    throw ParseError.headersTooLarge
                }
                headerBytes = bytes
                pending.moveReaderIndex(forwardBy: 4)
            } else {
                if pending.readableBytes > Self.maxHeaderBytes + 4 { throw ParseError.headersTooLarge }
                return false
            }
            guard let head = MultipartPartHead(headerBlock: headerBytes) else { throw ParseError.malformedHeaders }
            events.append(.partBegin(head))
            state = .body
            return true

        case .epilogue:
            return false
        }
    }

    /// The offset of the first occurrence of `needle` in the readable bytes of `buffer`.
    static func firstIndex(of needle: [UInt8], in buffer: ByteBuffer) -> Int? {
        guard let first = needle.first else { return 0 }
        return buffer.withUnsafeReadableBytes { haystack -> Int? in
            needle.withUnsafeBytes { pattern -> Int? in
                guard let base = haystack.baseAddress, let patternBase = pattern.baseAddress, haystack.count >= needle.count else {
                    return nil
                }
                var offset = 0
                let lastStart = haystack.count - needle.count
                while offset <= lastStart {
                    guard let hit = memchr(base + offset, Int32(first), lastStart - offset + 1) else { return nil }
                    let position = base.distance(to: UnsafeRawPointer(hit))
                    if memcmp(base + position, patternBase, needle.count) == 0 { return position }
                    offset = position + 1
                }
                return nil
            }
        }
    }
}
