import Foundation

/// `courier batch --checksums FILE`: digests in the format `sha256sum` and `sha512sum` write and check
/// (`SHA256SUMS`, `SHA512SUMS`): one `HEX  NAME` per line (`HEX *NAME` in binary mode), the algorithm told by the
/// digest's length (64 or 128 hexadecimal digits). Blank lines and lines starting with `#` are ignored.
struct ChecksumsFile: Equatable {
    /// The digest of each name as the file writes it (a path relative to the output directory, or a file name).
    let digests: [String: ExpectedChecksum]

    /// Parses `text`.
    /// - Throws: ``CLIFailure`` (usage) naming the first line that is not `HEX  NAME`, or a name given twice with
    ///   different digests.
    init(parsing text: String, named file: String) throws {
        var digests: [String: ExpectedChecksum] = [:]
        let lines = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
        for (index, line) in lines.enumerated() {
            let trimmed = String(line.trimmingBlanks)
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            let hex = trimmed.prefix { $0.isHexDigit }
            var rest = trimmed.dropFirst(hex.count)
            // sha256sum separates the digest and the name with two spaces, or a space and `*` (binary mode).
            guard rest.hasPrefix(" ") else { throw Self.malformed(file, index + 1) }
            rest = rest.dropFirst()
            if rest.first == "*" || rest.first == " " { rest = rest.dropFirst() }
            let name = rest.hasPrefix("./") ? String(rest.dropFirst(2)) : String(rest)
            let algorithm: String
            switch hex.count {
            case 64: algorithm = "sha256"
            case 128: algorithm = "sha512"
            default: throw Self.malformed(file, index + 1)
            }
            guard !name.isEmpty, let checksum = try? ExpectedChecksum(parsing: "\(algorithm)=\(hex)") else { throw Self.malformed(file, index + 1) }
            if let earlier = digests[name], earlier != checksum {
                throw CLIFailure.usage("\(file): line \(index + 1): \(name) is listed before with another digest")
            }
            digests[name] = checksum
        }
        self.digests = digests
    }

    private static func malformed(_ file: String, _ line: Int) -> CLIFailure {
        CLIFailure.usage("\(file): line \(line): expected a sha256 or sha512 digest in hexadecimal, two spaces and a file name")
    }
}
