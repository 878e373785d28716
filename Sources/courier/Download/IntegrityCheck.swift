import Crypto
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What a response promises about the file it produced: its size (`Content-Length`, or the
/// `Content-Range` total of a 206) and digests from `Repr-Digest` (RFC 9530, the whole
/// representation), `Content-Digest` (RFC 9530) and `Content-MD5` (RFC 1864), the last two over
/// the bytes of this response only (after the resumed offset of a 206).
struct IntegrityCheck: Equatable {
    /// A digest algorithm Courier can check.
    enum Algorithm: String, Equatable, CaseIterable {
        case md5 = "md5", sha256 = "sha-256", sha512 = "sha-512"
    }

    /// One digest to compare.
    struct Digest: Equatable {
        /// The header it came from, e.g. "Repr-Digest".
        let header: String
        let algorithm: Algorithm
        let expected: Data
        /// The first byte of the file it covers: 0 for the whole file.
        let from: Int64
    }

    /// The size the finished file must have, when the response said.
    let expectedSize: Int64?
    /// The digests to compare, in header order.
    let digests: [Digest]

    /// Reads the promises of `response`.
    init(response: HTTPURLResponse) {
        let contentLength = response.value(forHTTPHeaderField: "Content-Length").flatMap { Int64($0.trimmingCharacters(in: .whitespaces)) }
        var responseStart: Int64 = 0
        let range = response.value(forHTTPHeaderField: "Content-Range").flatMap(Self.contentRange)
        if response.statusCode == 206, let range, let start = range.start {
            expectedSize = range.total
            responseStart = start
        } else if response.statusCode == 416, let range {
            // A resumed download that was already complete: the total is the whole file.
            expectedSize = range.total
        } else {
            expectedSize = contentLength
        }
        var digests: [Digest] = []
        for (header, from) in [("Repr-Digest", Int64(0)), ("Content-Digest", responseStart)] {
            guard let value = response.value(forHTTPHeaderField: header) else { continue }
            digests += Self.structuredDigests(value).map { Digest(header: header, algorithm: $0.algorithm, expected: $0.value, from: from) }
        }
        if let value = response.value(forHTTPHeaderField: "Content-MD5"),
           let expected = Data(base64Encoded: value.trimmingCharacters(in: .whitespaces)), expected.count == 16 {
            digests.append(Digest(header: "Content-MD5", algorithm: .md5, expected: expected, from: responseStart))
        }
        self.digests = digests
    }

    /// Whether a digest covers the file from its first byte (`Repr-Digest`, or a digest of a response that was the
    /// whole file): only then does verification prove bytes kept from before a resumption.
    var coversWholeFile: Bool { digests.contains { $0.from == 0 } }

    /// A failed check, with a message naming what differed.
    struct Mismatch: Error, Equatable {
        let message: String
    }

    /// Checks `file`; returns what was verified (e.g. ["size 1048576", "Repr-Digest sha-256"]).
    /// - Throws: ``Mismatch`` on the first difference; errors reading the file.
    func verify(_ file: URL) throws -> [String] {
        var verified: [String] = []
        let size = try Self.size(of: file)
        if let expectedSize {
            guard size == expectedSize else {
                throw Mismatch(message: "size \(size) bytes, but the server announced \(expectedSize)")
            }
            verified.append("size \(size)")
        }
        for digest in digests {
            let actual = try Self.hash(file, from: digest.from, algorithm: digest.algorithm)
            guard actual == digest.expected else {
                throw Mismatch(message: "\(digest.header) \(digest.algorithm.rawValue) is \(digest.expected.base64EncodedString()) but the file's is \(actual.base64EncodedString())")
            }
            verified.append("\(digest.header) \(digest.algorithm.rawValue)")
        }
        return verified
    }

    /// The members of an RFC 9530 `Repr-Digest`/`Content-Digest` dictionary that Courier can check
    /// (`sha-256=:base64:`, `sha-512=:base64:`); unknown algorithms and malformed members are skipped.
    static func structuredDigests(_ value: String) -> [(algorithm: Algorithm, value: Data)] {
        value.split(separator: ",").compactMap { member in
            let parts = member.split(separator: "=", maxSplits: 1)
            guard parts.count == 2,
                  let algorithm = Algorithm(rawValue: parts[0].trimmingCharacters(in: .whitespaces).lowercased()),
                  algorithm != .md5 else { return nil }
            var encoded = parts[1].trimmingCharacters(in: .whitespaces)
            if let semicolon = encoded.firstIndex(of: ";") { encoded = String(encoded[..<semicolon]) }   // parameters
            guard encoded.count >= 2, encoded.hasPrefix(":"), encoded.hasSuffix(":"),
                  let data = Data(base64Encoded: String(encoded.dropFirst().dropLast())) else { return nil }
            return (algorithm, data)
        }
    }

    /// `bytes start-end/total` → (start, total), `bytes */total` → (nil, total); `nil` for an
    /// unknown total or a malformed value.
    static func contentRange(_ value: String) -> (start: Int64?, total: Int64)? {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        guard trimmed.lowercased().hasPrefix("bytes ") else { return nil }
        let halves = trimmed.dropFirst(6).split(separator: "/")
        guard halves.count == 2, let total = Int64(halves[1].trimmingCharacters(in: .whitespaces)) else { return nil }
        if halves[0].trimmingCharacters(in: .whitespaces) == "*" { return (nil, total) }
        guard let start = halves[0].split(separator: "-").first.flatMap({ Int64($0.trimmingCharacters(in: .whitespaces)) }) else { return nil }
        return (start, total)
    }

    /// The size of `file` in bytes.
    static func size(of file: URL) throws -> Int64 {
        let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
        return (attributes[.size] as? NSNumber)?.int64Value ?? 0
    }

    /// The digest of `file` from byte `from` to its end, read in 1 MiB pieces.
    static func hash(_ file: URL, from: Int64, algorithm: Algorithm) throws -> Data {
        switch algorithm {
        case .md5: return try hash(file, from: from, into: Insecure.MD5())
        case .sha256: return try hash(file, from: from, into: SHA256())
        case .sha512: return try hash(file, from: from, into: SHA512())
        }
    }

    private static func hash<Hash: HashFunction>(_ file: URL, from: Int64, into hash: Hash) throws -> Data {
        var hash = hash
        let handle = try FileHandle(forReadingFrom: file)
        defer { try? handle.close() }
        try handle.seek(toOffset: UInt64(max(from, 0)))
        while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
            hash.update(data: chunk)
        }
        return Data(hash.finalize())
    }
}
