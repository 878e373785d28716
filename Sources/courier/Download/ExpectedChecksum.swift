import Foundation

/// `courier download --checksum ALGORITHM=HEX`: the digest the user expects the whole file to have, checked after the
/// server's own promises (size, `Repr-Digest`, `Content-Digest`, `Content-MD5`), as aria2c's `--checksum` is.
/// `sha256` and `sha512` (also spelled `sha-256`, `sha-512`, any case); the hexadecimal value of the full length.
struct ExpectedChecksum: Equatable {
    let algorithm: DigestAlgorithm
    let digest: Data

    /// Parses `text`.
    /// - Throws: ``CLIFailure`` (usage) naming what is wrong.
    init(parsing text: String) throws {
        guard let equals = text.firstIndex(of: "=") else {
            throw CLIFailure.usage("--checksum takes ALGORITHM=HEX (sha256 or sha512), not \(text.debugDescription)")
        }
        let name = text[..<equals].lowercased().replacingOccurrences(of: "-", with: "")
        let hex = text[text.index(after: equals)...].lowercased()
        switch name {
        case "sha256": algorithm = .sha256
        case "sha512": algorithm = .sha512
        default: throw CLIFailure.usage("--checksum: unknown algorithm \(String(text[..<equals]).debugDescription) (sha256 or sha512)")
        }
        let length = algorithm == .sha256 ? 32 : 64
        guard hex.count == length * 2, let bytes = Self.bytes(hex: hex) else {
            throw CLIFailure.usage("--checksum: a \(algorithm.rawValue) digest is \(length * 2) hexadecimal digits, not \(hex.count == length * 2 ? "\(hex.debugDescription)" : "\(hex.count)")")
        }
        digest = bytes
    }

    /// The hexadecimal text of `data`.
    static func hex(_ data: Data) -> String {
        data.map { String(format: "%02x", $0) }.joined()
    }

    private static func bytes(hex: String) -> Data? {
        var bytes = Data(capacity: hex.count / 2)
        var digits = hex.utf8.makeIterator()
        while let high = digits.next() {
            guard let low = digits.next(), let value = UInt8(String(decoding: [high, low], as: UTF8.self), radix: 16) else { return nil }
            bytes.append(value)
        }
        return bytes
    }
}
