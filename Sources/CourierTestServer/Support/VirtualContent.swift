import Crypto
import Foundation
import Hummingbird
import NIOConcurrencyHelpers
import NIOCore

/// Content of any length defined by a rule, served as zero-copy slices of a precomputed pattern,
/// so that gigabytes stream without per-byte work.
protocol VirtualContent: Sendable {
    /// Bytes starting at `position`: at least one and at most `maxLength` (and at most 64 KiB).
    func slice(at position: Int, maxLength: Int) -> ByteBuffer
}

/// Block size of the precomputed patterns.
let contentBlockSize = 64 * 1024

extension VirtualContent {
    /// Writes bytes `range` to `writer` in pieces of at most `chunkSize` bytes, several pieces per
    /// write call, then finishes the body.
    func write(_ range: Range<Int>, chunkSize: Int = contentBlockSize, to writer: inout any ResponseBodyWriter) async throws {
        let piece = max(1, min(chunkSize, contentBlockSize))
        let piecesPerWrite = max(1, (1024 * 1024) / piece)
        var position = range.lowerBound
        var batch: [ByteBuffer] = []
        batch.reserveCapacity(piecesPerWrite)
        while position < range.upperBound {
            let buffer = slice(at: position, maxLength: min(piece, range.upperBound - position))
            position += buffer.readableBytes
            batch.append(buffer)
            if batch.count == piecesPerWrite {
                try await writer.write(contentsOf: batch)
                batch.removeAll(keepingCapacity: true)
            }
        }
        if !batch.isEmpty { try await writer.write(contentsOf: batch) }
        try await writer.finish(nil)
    }

    /// The bytes `range` gathered into `Data` (for small ranges and tests).
    func data(_ range: Range<Int>) -> Data {
        var data = Data(capacity: range.count)
        var position = range.lowerBound
        while position < range.upperBound {
            let buffer = slice(at: position, maxLength: range.upperBound - position)
            data.append(contentsOf: buffer.readableBytesView)
            position += buffer.readableBytes
        }
        return data
    }
}

/// httpbin's `/range` content: the lower-case ASCII alphabet repeated.
struct AlphabetContent: VirtualContent {
    private static let alphabet = Array("abcdefghijklmnopqrstuvwxyz".utf8)
    private static let pattern: ByteBuffer = {
        var buffer = ByteBuffer()
        buffer.reserveCapacity(contentBlockSize + alphabet.count)
        while buffer.readableBytes < contentBlockSize + alphabet.count {
            buffer.writeBytes(alphabet)
        }
        return buffer
    }()

    func slice(at position: Int, maxLength: Int) -> ByteBuffer {
        let start = position % Self.alphabet.count
        let length = min(maxLength, contentBlockSize)
        return Self.pattern.getSlice(at: start, length: length) ?? ByteBuffer()
    }
}

/// Pseudo-random bytes fully determined by a seed: 64 KiB blocks, each a window of a 1 MiB
/// pattern at an offset derived from the seed and the block number.
struct SeededContent: VirtualContent {
    /// Size of the region block offsets are chosen from.
    private static let windowRange = 1024 * 1024
    private static let patternLength = windowRange + contentBlockSize
    private static let cache = NIOLockedValueBox<[UInt64: ByteBuffer]>([:])

    let seed: UInt64
    private let pattern: ByteBuffer

    /// Content for `seed`; `length` bounds the bytes that will be asked for (small ones skip the full pattern).
    init(seed: UInt64, length: Int) {
        self.seed = seed
        if length <= contentBlockSize {
            pattern = Self.makePattern(seed: seed, length: length)
        } else if let cached = Self.cache.withLockedValue({ $0[seed] }) {
            pattern = cached
        } else {
            let made = Self.makePattern(seed: seed, length: Self.patternLength)
            Self.cache.withLockedValue { cache in
                if cache.count >= 8 { cache.removeAll() }
                cache[seed] = made
            }
            pattern = made
        }
    }

    func slice(at position: Int, maxLength: Int) -> ByteBuffer {
        let block = position / contentBlockSize
        let within = position % contentBlockSize
        let length = min(maxLength, contentBlockSize - within)
        let start = block == 0 ? 0 : Int(SplitMix64.mix(seed &+ UInt64(block) &* 0x9E37_79B9_7F4A_7C15) % UInt64(Self.windowRange))
        return pattern.getSlice(at: start + within, length: length) ?? ByteBuffer()
    }

    private static func makePattern(seed: UInt64, length: Int) -> ByteBuffer {
        var generator = SplitMix64(state: seed)
        var buffer = ByteBuffer()
        buffer.reserveCapacity(length + 8)
        while buffer.readableBytes < length {
            buffer.writeInteger(generator.next(), endianness: .little)
        }
        return buffer.getSlice(at: 0, length: length) ?? buffer
    }
}

/// The SplitMix64 generator (Steele, Lea, Flood 2014): tiny, fast and well distributed.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        return Self.mix(state)
    }

    /// The SplitMix64 output function.
    static func mix(_ value: UInt64) -> UInt64 {
        var z = value
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// The exact bodies of the content endpoints, for tests that check bytes client-side.
public enum TestPayload {
    /// The body of `/bytes/{count}?seed={seed}` (and of `/stream-bytes/{count}?seed={seed}`).
    public static func bytes(count: Int, seed: UInt64) -> Data {
        SeededContent(seed: seed, length: count).data(0..<max(0, count))
    }

    /// The SHA-256 (lowercase hex) of the body of `/bytes/{count}?seed={seed}` and `/download/{count}?seed={seed}`,
    /// computed in 64 KiB pieces so that any length fits in memory.
    public static func sha256Hex(count: Int, seed: UInt64) -> String {
        let content = SeededContent(seed: seed, length: count)
        var hasher = SHA256()
        var position = 0
        while position < count {
            let slice = content.slice(at: position, maxLength: min(contentBlockSize, count - position))
            slice.withUnsafeReadableBytes { hasher.update(bufferPointer: $0) }
            position += max(1, slice.readableBytes)
        }
        return hasher.finalize().map { String(format: "%02x", $0) }.joined()
    }

    /// The full body of `/range/{count}`: `abcdefghijklmnopqrstuvwxyz` repeated.
    public static func rangeContent(count: Int) -> Data {
        AlphabetContent().data(0..<max(0, count))
    }
}
