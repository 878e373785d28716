import Foundation

/// One line of a JSON Lines manifest for `courier batch`: an object with `url` (required), `output`, `size`,
/// `sha256` or `sha512` (hexadecimal), `mirrors` (URLs of the same file, tried in turn) and `headers` (an object of
/// header fields), as download managers' manifests hold. Unknown keys are an error, so that a misspelt `sha256` is not
/// silently unchecked.
struct ManifestLine: Decodable {
    let url: String
    let output: String?
    let size: Int64?
    let sha256: String?
    let sha512: String?
    let mirrors: [String]?
    let headers: [String: String]?

    private enum CodingKeys: String, CodingKey, CaseIterable {
        case url, output, size, sha256, sha512, mirrors, headers
    }

    /// The download `text` (line `line`) describes; a relative output goes in `directory`.
    /// - Throws: ``BatchFile/Malformed`` naming the line and what is wrong.
    static func entry(parsing text: String, line: Int, directory: URL) throws -> BatchFile.Entry {
        let data = Data(text.utf8)
        let manifest: ManifestLine
        do {
            if let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] {
                let known = Set(CodingKeys.allCases.map(\.rawValue))
                if let unknown = object.keys.sorted().first(where: { !known.contains($0) }) {
                    throw BatchFile.Malformed(line: line, reason: "unknown key \"\(unknown)\" (known: \(CodingKeys.allCases.map(\.rawValue).joined(separator: ", ")))")
                }
            }
            manifest = try JSONDecoder().decode(ManifestLine.self, from: data)
        } catch let malformed as BatchFile.Malformed {
            throw malformed
        } catch {
            throw BatchFile.Malformed(line: line, reason: "not a manifest object with a \"url\" string: \(Self.describe(error))")
        }
        let url = try BatchFile.httpURL(manifest.url, line: line)
        if let output = manifest.output, output.isEmpty {
            throw BatchFile.Malformed(line: line, reason: "\"output\" is empty")
        }
        var entry = BatchFile.Entry(line: line, url: url, output: BatchFile.output(manifest.output ?? SafeFileName.forURL(url), in: directory))
        entry.mirrors = try (manifest.mirrors ?? []).map { try BatchFile.httpURL($0, line: line) }
        if let size = manifest.size {
            guard size >= 0 else { throw BatchFile.Malformed(line: line, reason: "\"size\" is negative") }
            entry.size = size
        }
        let digests = [("sha256", manifest.sha256), ("sha512", manifest.sha512)].compactMap { name, hex in hex.map { (name, $0) } }
        guard digests.count <= 1 else { throw BatchFile.Malformed(line: line, reason: "give \"sha256\" or \"sha512\", not both") }
        if let (name, hex) = digests.first {
            do {
                entry.checksum = try ExpectedChecksum(parsing: "\(name)=\(hex)")
            } catch let failure as CLIFailure {
                throw BatchFile.Malformed(line: line, reason: "\"\(name)\": \(failure.message.replacingOccurrences(of: "--checksum: ", with: ""))")
            }
        }
        for (name, value) in manifest.headers ?? [:] {
            do {
                let field = try HeaderOption(parsing: "\(name): \(value)")
                entry.headers[field.name] = field.value
            } catch let failure as CLIFailure {
                throw BatchFile.Malformed(line: line, reason: failure.message)
            }
        }
        return entry
    }

    private static func describe(_ error: any Error) -> String {
        switch error {
        case DecodingError.keyNotFound(let key, _): "\"\(key.stringValue)\" is missing"
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
            "\"\(context.codingPath.map(\.stringValue).joined(separator: "."))\" has the wrong type"
        default: "invalid JSON"
        }
    }
}
