import Crypto
import Hummingbird
import NIOCore

/// Incremental size and SHA-256 of a byte stream.
struct BodyDigest {
    private var hasher = SHA256()
    /// Bytes seen so far.
    private(set) var size = 0

    /// Adds `buffer` to the digest.
    mutating func update(_ buffer: ByteBuffer) {
        buffer.withUnsafeReadableBytes { hasher.update(bufferPointer: $0) }
        size += buffer.readableBytes
    }

    /// The lower-case hex SHA-256 of everything seen.
    func hexDigest() -> String {
        hasher.finalize().hexString
    }
}

extension Digest {
    /// Lower-case hexadecimal form of the digest.
    var hexString: String {
        map { byte in
            let text = String(byte, radix: 16)
            return byte < 16 ? "0" + text : text
        }.joined()
    }
}

/// A request body read to the end: its size, its SHA-256, and its bytes when small enough to keep.
struct BodySummary {
    let size: Int
    let sha256: String
    /// The whole body, or `nil` when it was larger than the cap given to ``read(_:keepingUpTo:)``.
    let bytes: ByteBuffer?

    /// Streams `body` through SHA-256, keeping at most `cap` bytes in memory.
    static func read(_ body: RequestBody, keepingUpTo cap: Int) async throws -> BodySummary {
        var digest = BodyDigest()
        var kept: ByteBuffer? = ByteBuffer()
        for try await chunk in body {
            digest.update(chunk)
            if var buffer = kept {
                kept = nil  // keep the storage uniquely referenced while appending
                if buffer.readableBytes + chunk.readableBytes <= cap {
                    var chunk = chunk
                    buffer.writeBuffer(&chunk)
                    kept = buffer
                }
            }
        }
        return BodySummary(size: digest.size, sha256: digest.hexDigest(), bytes: kept)
    }
}
