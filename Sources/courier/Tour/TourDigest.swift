import Crypto
import Foundation

/// SHA-256 digests as lowercase hex, of bytes in memory or of a file (hashed by the download
/// command's ``IntegrityCheck``).
enum TourDigest {
    static func sha256(_ data: Data) -> String {
        hex(Data(SHA256.hash(data: data)))
    }

    static func sha256(ofFile url: URL) throws -> String {
        hex(try IntegrityCheck.hash(url, from: 0, algorithm: .sha256))
    }

    private static func hex(_ digest: Data) -> String {
        digest.map { String(format: "%02x", $0) }.joined()
    }
}
