import Foundation

/// The file name a `Content-Disposition` header proposes, made safe to create in the current directory.
///
/// Hand-written: no maintained Swift package parses this header (it is not an RFC 8941 structured field). RFC 6266
/// with RFC 8187's `filename*` (preferred when present); the name is then made safe by ``SafeFileName``.
enum ContentDispositionName {
    /// The safe name in `header`, or `nil` when it has none that can be used.
    static func filename(in header: String?) -> String? {
        guard let header else { return nil }
        let parameters = Self.parameters(of: header)
        let proposed = parameters["filename*"].flatMap(Self.decodeExtended) ?? parameters["filename"]
        return proposed.flatMap(SafeFileName.sanitized)
    }

    /// The header's parameters by lower-cased name (values unquoted), after the disposition type.
    private static func parameters(of header: String) -> [String: String] {
        var result: [String: String] = [:]
        var rest = Substring(header)
        // Skip the disposition type.
        guard let firstSemicolon = rest.firstIndex(of: ";") else { return result }
        rest = rest[rest.index(after: firstSemicolon)...]
        while !rest.isEmpty {
            rest = rest.drop { $0 == " " || $0 == "\t" || $0 == ";" }
            guard let equals = rest.firstIndex(of: "=") else { break }
            let name = rest[..<equals].trimmingCharacters(in: .whitespaces).lowercased()
            rest = rest[rest.index(after: equals)...].drop { $0 == " " || $0 == "\t" }
            var value = ""
            if rest.first == "\"" {
                rest = rest.dropFirst()
                var escaped = false
                while let character = rest.first {
                    rest = rest.dropFirst()
                    if escaped {
                        value.append(character)
                        escaped = false
                    } else if character == "\\" {
                        escaped = true
                    } else if character == "\"" {
                        break
                    } else {
                        value.append(character)
                    }
                }
                rest = rest.drop { $0 != ";" }
            } else {
                let end = rest.firstIndex(of: ";") ?? rest.endIndex
                value = rest[..<end].trimmingCharacters(in: .whitespaces)
                rest = rest[end...]
            }
            if result[name] == nil { result[name] = value }
        }
        return result
    }

    /// RFC 8187: `UTF-8'lang'percent-encoded` (only UTF-8 is read; other charsets are ignored).
    private static func decodeExtended(_ value: String) -> String? {
        let parts = value.split(separator: "'", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].lowercased() == "utf-8" else { return nil }
        return String(parts[2]).removingPercentEncoding
    }
}
