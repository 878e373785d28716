import Courier
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
    typealias Algorithm = DigestAlgorithm

    /// One digest to compare.
    typealias Digest = DigestPromise

    /// The size the finished file must have, when the response said.
    let expectedSize: Int64?
    /// The digests to compare, in header order.
    let digests: [Digest]

    /// Reads the promises of `response` (parsed by ``DigestFieldParser``).
    init(response: HTTPURLResponse) {
        let promises = DigestFieldParser.promises(status: response.statusCode) { response.value(forHTTPHeaderField: $0) }
        expectedSize = promises.expectedSize
        digests = promises.digests
    }

    private init(expectedSize: Int64?, digests: [Digest]) {
        self.expectedSize = expectedSize
        self.digests = digests
    }

    /// The promises about the whole file only (its size, `Repr-Digest`): for a file put together from segments, where
    /// the response's `Content-Digest` and `Content-MD5` describe that response's bytes alone.
    func wholeRepresentationOnly() -> IntegrityCheck {
        IntegrityCheck(expectedSize: expectedSize, digests: digests.filter { $0.header == "Repr-Digest" })
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
    /// (see ``DigestFieldParser/structuredDigests(_:)``).
    static func structuredDigests(_ value: String) -> [(algorithm: Algorithm, value: Data)] {
        DigestFieldParser.structuredDigests(value)
    }

    /// `bytes start-end/total` → (start, total), `bytes */total` → (nil, total) (see
    /// ``DigestFieldParser/contentRange(_:)``).
    static func contentRange(_ value: String) -> (start: Int64?, total: Int64)? {
        DigestFieldParser.contentRange(value)
    }

    /// The size of `file` in bytes.
    static func size(of file: URL) throws -> Int64 {
        guard let status = FileStatus(path: file.path) else {
            throw CocoaError(.fileReadNoSuchFile, userInfo: [NSFilePathErrorKey: file.path])
        }
        return status.size
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
