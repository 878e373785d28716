import Foundation

/// A digest algorithm `courier download` can check (``IntegrityCheck/Algorithm``).
enum DigestAlgorithm: String, Equatable, CaseIterable {
    case md5 = "md5", sha256 = "sha-256", sha512 = "sha-512"
}

/// One digest a response promises (``IntegrityCheck/Digest``).
struct DigestPromise: Equatable {
    /// The header it came from, e.g. "Repr-Digest".
    let header: String
    let algorithm: DigestAlgorithm
    let expected: Data
    /// The first byte of the file it covers: 0 for the whole file.
    let from: Int64
}

/// The header fields ``IntegrityCheck`` reads, parsed without hashing anything: the size a response promises
/// (`Content-Length`, or the `Content-Range` total of a 206 or 416) and its digests (`Repr-Digest`,
/// `Content-Digest`, `Content-MD5`). Kept apart from the hashing (swift-crypto) so that the parsing of these
/// server-sent values can be fuzzed on its own (Fuzz/Sources/FuzzIntegrityHeader).
enum DigestFieldParser {
    /// The size and digests promised by a response of `status` whose header fields `field` looks up by name.
    static func promises(status: Int, field: (String) -> String?) -> (expectedSize: Int64?, digests: [DigestPromise]) {
        let contentLength = field("Content-Length").flatMap(number)
        var responseStart: Int64 = 0
        let expectedSize: Int64?
        let range = field("Content-Range").flatMap(contentRange)
        if status == 206, let range, let start = range.start {
            expectedSize = range.total
            responseStart = start
        } else if status == 416, let range {
            // A resumed download that was already complete: the total is the whole file.
            expectedSize = range.total
        } else {
            expectedSize = contentLength
        }
        var digests: [DigestPromise] = []
        for (header, from) in [("Repr-Digest", Int64(0)), ("Content-Digest", responseStart)] {
            guard let value = field(header) else { continue }
            digests += structuredDigests(value).map { DigestPromise(header: header, algorithm: $0.algorithm, expected: $0.value, from: from) }
        }
        if let value = field("Content-MD5"),
           let expected = Data(base64Encoded: value.trimmingCharacters(in: .whitespaces)), expected.count == 16 {
            digests.append(DigestPromise(header: "Content-MD5", algorithm: .md5, expected: expected, from: responseStart))
        }
        return (expectedSize, digests)
    }

    /// The members of an RFC 9530 `Repr-Digest`/`Content-Digest` dictionary that Courier can check
    /// (`sha-256=:base64:`, `sha-512=:base64:`); unknown algorithms and malformed members are skipped.
    static func structuredDigests(_ value: String) -> [(algorithm: DigestAlgorithm, value: Data)] {
        value.split(separator: ",").compactMap { member in
            let parts = member.split(separator: "=", maxSplits: 1)
            guard parts.count == 2,
                  let algorithm = DigestAlgorithm(rawValue: parts[0].trimmingCharacters(in: .whitespaces).lowercased()),
                  algorithm != .md5 else { return nil }
            var encoded = parts[1].trimmingCharacters(in: .whitespaces)
            if let semicolon = encoded.firstIndex(of: ";") { encoded = String(encoded[..<semicolon]) }   // parameters
            guard encoded.count >= 2, encoded.hasPrefix(":"), encoded.hasSuffix(":"),
                  let data = Data(base64Encoded: String(encoded.dropFirst().dropLast())) else { return nil }
            return (algorithm, data)
        }
    }

    /// `bytes start-end/total` → (start, total), `bytes */total` → (nil, total); `nil` for an
    /// unknown total or a malformed value: numbers are plain decimals, and `start <= end < total`.
    static func contentRange(_ value: String) -> (start: Int64?, total: Int64)? {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        guard trimmed.lowercased().hasPrefix("bytes ") else { return nil }
        let halves = trimmed.dropFirst(6).split(separator: "/", omittingEmptySubsequences: false)
        guard halves.count == 2, let total = number(halves[1]) else { return nil }
        if halves[0].trimmingCharacters(in: .whitespaces) == "*" { return (nil, total) }
        let bounds = halves[0].split(separator: "-", omittingEmptySubsequences: false)
        guard bounds.count == 2, let start = number(bounds[0]), let end = number(bounds[1]), start <= end, end < total else { return nil }
        return (start, total)
    }

    /// A length or position: decimal digits only (white space around them allowed) that fit `Int64`.
    static func number<Text: StringProtocol>(_ text: Text) -> Int64? {
        // Not `trimmingCharacters(in:)`, which goes through `NSString`: a field value holds no line breaks.
        let digits = text.trimmingBlanks
        guard !digits.isEmpty, digits.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { return nil }
        return Int64(digits)
    }
}
