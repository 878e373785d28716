import CompressNIO
import Foundation
import NIOCore
import NIOFoundationCompat

/// Inflates one encoded body chunk by chunk with zlib (through compress-nio), holding one output window.
///
/// compress-nio's `ZlibDecompressor` reports a full output window and an exhausted input as errors and a finished
/// stream as a plain return; this type turns that into "the bytes so far" and, at the end, "was the stream
/// complete". It is used by one body iterator at a time (not `Sendable`).
final class StreamInflater {
    private let coding: ContentCoding
    private var decompressor: ZlibDecompressor?
    /// The first bytes of a `deflate` body, until there are two to tell the zlib format from raw deflate.
    private var pendingHeader = Data()
    private var window: ByteBuffer
    /// Whether the current stream (gzip member) reached its end.
    private var streamEnded = false
    /// Whether any encoded byte arrived (an empty body, as for `HEAD`, decodes to nothing).
    private var sawInput = false

    /// The output window size: one read of the decoded stream.
    private static let windowSize = 64 * 1024

    init(coding: ContentCoding) {
        self.coding = coding
        self.window = ByteBufferAllocator().buffer(capacity: Self.windowSize)
    }

    /// Inflates `chunk`; returns the decoded bytes it completed (possibly none).
    /// - Throws: ``ContentDecodingError`` when the data is not valid for the coding.
    func inflate(_ chunk: Data) throws -> Data {
        guard !chunk.isEmpty else { return Data() }
        sawInput = true
        var input: ByteBuffer
        if decompressor == nil {
            var header = pendingHeader
            header.append(chunk)
            if coding == .deflate, header.count < 2 {
                pendingHeader = header
                return Data()
            }
            pendingHeader = Data()
            decompressor = try Self.makeDecompressor(for: coding, firstBytes: header)
            input = ByteBuffer(data: header)
        } else {
            input = ByteBuffer(data: chunk)
        }
        var output = Data()
        while input.readableBytes > 0 {
            if streamEnded {
                // Bytes after the end: another gzip member (RFC 1952 allows several); anything after a deflate
                // stream is ignored, as browsers do.
                guard coding == .gzip else { break }
                try restart()
            }
            try step(&input, into: &output)
        }
        return output
    }

    /// The bytes still held once the encoded body has ended.
    /// - Throws: ``ContentDecodingError/truncated`` when the stream stopped before its end.
    func finish() throws -> Data {
        guard sawInput else { return Data() }
        if decompressor == nil {
            // A deflate body of one byte cannot be a stream.
            throw ContentDecodingError.truncated
        }
        var output = Data()
        var empty = ByteBufferAllocator().buffer(capacity: 1)
        while !streamEnded {
            let before = output.count
            try step(&empty, into: &output)
            if !streamEnded, output.count == before { throw ContentDecodingError.truncated }
        }
        return output
    }

    /// One call into zlib; decoded bytes go to `output`.
    private func step(_ input: inout ByteBuffer, into output: inout Data) throws {
        guard let decompressor else { return }
        window.clear()
        let available = input.readableBytes
        do {
            try decompressor.inflate(from: &input, to: &window)
            // No error: zlib either finished the stream or used all the input with room to spare. Input left over,
            // or a call that could neither read nor write, can only mean the end.
            let consumed = available - input.readableBytes
            if input.readableBytes > 0 || (consumed == 0 && window.readableBytes == 0) { streamEnded = true }
            drain(into: &output)
        } catch let error as CompressNIOError where error == .bufferOverflow {
            // The window is full; more output is pending.
            drain(into: &output)
        } catch let error as CompressNIOError where error == .inputBufferOverflow {
            // The input is used up: the stream continues in the next chunk.
            drain(into: &output)
        } catch let error as CompressNIOError where error == .corruptData {
            throw ContentDecodingError.corrupt
        } catch {
            throw ContentDecodingError.failed(String(describing: error))
        }
    }

    private func drain(into output: inout Data) {
        guard window.readableBytes > 0 else { return }
        window.withUnsafeReadableBytes { output.append(contentsOf: $0) }
        window.clear()
    }

    private func restart() throws {
        do {
            try decompressor?.reset()
        } catch {
            throw ContentDecodingError.failed(String(describing: error))
        }
        streamEnded = false
    }

    private static func makeDecompressor(for coding: ContentCoding, firstBytes: Data) throws -> ZlibDecompressor {
        let algorithm: ZlibAlgorithm
        switch coding {
        case .gzip:
            algorithm = .gzip
        case .deflate:
            // RFC 1950 header: compression method 8 and a check value that makes the first two bytes a multiple of 31.
            let first = Int(firstBytes[firstBytes.startIndex])
            let second = Int(firstBytes[firstBytes.index(after: firstBytes.startIndex)])
            algorithm = (first & 0x0F) == 8 && (first * 256 + second) % 31 == 0 ? .zlib : .deflate
        }
        do {
            return try ZlibDecompressor(algorithm: algorithm)
        } catch {
            throw ContentDecodingError.failed(String(describing: error))
        }
    }
}

/// Why an encoded body could not be decoded.
enum ContentDecodingError: Error, Equatable {
    /// The data is not valid for its coding.
    case corrupt
    /// The body ended before the end of its encoded stream.
    case truncated
    /// zlib failed otherwise (out of memory, an internal error).
    case failed(String)
}
