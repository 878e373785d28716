import Foundation
import NIOCore

/// The headers of one multipart part, with the `Content-Disposition` parameters extracted.
struct MultipartPartHead: Equatable, Sendable {
    /// Header fields with lower-cased names, in order.
    let fields: [Field]
    /// The `name` parameter of `Content-Disposition`.
    let name: String?
    /// The `filename` (or decoded `filename*`) parameter of `Content-Disposition`.
    let filename: String?
    /// The part's `Content-Type`, if given.
    let contentType: String?

    /// One header line.
    struct Field: Equatable, Sendable {
        let name: String
        let value: String
    }

    /// Parses a header block (lines separated by CRLF, without the final blank line).
    init?(headerBlock: ByteBuffer) {
        let bytes = headerBlock.readableBytesView
        let text = String(validating: bytes, as: UTF8.self) ?? String(decoding: bytes.map { $0 }, as: Unicode.ASCII.self)
        var fields: [Field] = []
        for line in text.components(separatedBy: "\r\n") where !line.isEmpty {
            guard let colon = line.firstIndex(of: ":") else { return nil }
            let name = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
            guard !name.isEmpty else { return nil }
            fields.append(Field(name: name, value: line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
        }
        self.fields = fields
        self.contentType = fields.first { $0.name == "content-type" }?.value
        let disposition = fields.first { $0.name == "content-disposition" }.map { HeaderParameters.parse($0.value) }
        self.name = disposition?.parameters["name"]
        if let extended = disposition?.parameters["filename*"], let decoded = Self.decodeExtendedValue(extended) {
            self.filename = decoded
        } else {
            self.filename = disposition?.parameters["filename"]
        }
    }

    /// Decodes an RFC 8187 `charset'language'percent-encoded` value (UTF-8 only).
    private static func decodeExtendedValue(_ value: String) -> String? {
        let parts = value.split(separator: "'", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].lowercased() == "utf-8" else { return nil }
        return parts[2].removingPercentEncoding
    }
}

/// Parsing of header values of the form `token; key=value; key="quoted value"`.
enum HeaderParameters {
    /// The leading token (lower-cased) and the parameters (keys lower-cased, quotes removed).
    static func parse(_ value: String) -> (token: String, parameters: [String: String]) {
        let items = split(value, separator: ";")
        let token = items.first?.trimmingCharacters(in: .whitespaces).lowercased() ?? ""
        return (token, pairs(items.dropFirst()))
    }

    /// `key=value` items (keys lower-cased, values unquoted); items without `=` are skipped.
    static func pairs(_ items: some Sequence<String>) -> [String: String] {
        var parameters: [String: String] = [:]
        for item in items {
            guard let equals = item.firstIndex(of: "=") else { continue }
            let key = item[..<equals].trimmingCharacters(in: .whitespaces).lowercased()
            let raw = item[item.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            parameters[key] = unquote(raw)
        }
        return parameters
    }

    /// Splits `value` at `separator` outside quoted-strings.
    static func split(_ value: String, separator: Character) -> [String] {
        var items: [String] = []
        var current = ""
        var quoted = false
        var escaped = false
        for character in value {
            if escaped {
                escaped = false
            } else if quoted && character == "\\" {
                escaped = true
            } else if character == "\"" {
                quoted.toggle()
            } else if character == separator && !quoted {
                items.append(current)
                current = ""
                continue
            }
            current.append(character)
        }
        items.append(current)
        return items
    }

    /// Removes surrounding quotes and backslash escapes from a quoted-string.
    static func unquote(_ raw: String) -> String {
        guard raw.count >= 2, raw.hasPrefix("\""), raw.hasSuffix("\"") else { return raw }
        var result = ""
        var escaped = false
        for character in raw.dropFirst().dropLast() {
            if escaped {
                result.append(character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else {
                result.append(character)
            }
        }
        return result
    }
}
