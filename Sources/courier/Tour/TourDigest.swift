import Crypto
import Foundation

/// SHA-256 digests as lowercase hex, of bytes in memory or of a file read in 1 MiB slices.
enum TourDigest {
    static func sha256(_ data: Data) -> String {
        hex(SHA256.hash(data: data))
    }

    static func sha256(ofFile url: URL) throws -> String {
        let handle = try FileHandle(forReadingFrom: url)
        defer { try? handle.close() }
        var hasher = SHA256()
        while let slice = try handle.read(upToCount: 1 << 20), !slice.isEmpty {
            hasher.update(data: slice)
        }
        return hex(hasher.finalize())
    }

    private static func hex(_ digest: SHA256.Digest) -> String {
        digest.map { String(format: "%02x", $0) }.joined()
    }
}
