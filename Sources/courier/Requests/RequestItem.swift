import Foundation

/// One HTTPie-style request item.
enum RequestItem: Equatable {
    case query(name: String, value: String)
    case header(name: String, value: String)
    case field(name: String, value: String)
    case jsonField(name: String, json: String)
    case file(name: String, path: String)

    /// Separators, longest first so that `==` wins over `=`, `:=@` over `:=` and `:=` over `:` at the same place.
    private static let separators = ["==", ":=@", ":=", "=@", "=", ":", "@"]

    /// Parses `text`; the left-most separator decides the kind.
    init(parsing text: String) throws {
        var best: (range: Range<String.Index>, separator: String)?
        for separator in Self.separators {
            guard let range = text.range(of: separator) else { continue }
            if let current = best, current.range.lowerBound <= range.lowerBound { continue }
            best = (range, separator)
        }
        guard let (range, separator) = best, range.lowerBound != text.startIndex else {
            throw CLIFailure.usage("cannot read request item \"\(text)\"; use name==value, Header:value, name=value, name:=json, name@file, name=@file or name:=@file.json")
        }
        let name = String(text[..<range.lowerBound])
        let value = String(text[range.upperBound...])
        switch separator {
        case "==": self = .query(name: name, value: value)
        case ":=": self = .jsonField(name: name, json: value)
        case ":=@": self = .jsonField(name: name, json: try Self.text(ofFile: value, item: text))
        case "=@": self = .field(name: name, value: try Self.text(ofFile: value, item: text))
        case "=": self = .field(name: name, value: value)
        case ":": self = .header(name: name, value: value.trimmingCharacters(in: .whitespaces))
        default: self = .file(name: name, path: value)
        }
    }

    /// The UTF-8 text of the file at `path` (a field's value, or a raw JSON field, from a file).
    /// - Throws: ``CLIFailure`` (usage) when it cannot be read or is not UTF-8.
    private static func text(ofFile path: String, item: String) throws -> String {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CLIFailure.usage("request item \"\(item)\": cannot read the file \"\(path)\"")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw CLIFailure.usage("request item \"\(item)\": \"\(path)\" is not UTF-8 text")
        }
        return text
    }

    /// Whether the item uploads a file (`name@path`).
    var isFile: Bool {
        if case .file = self { return true }
        return false
    }

    var isBodyItem: Bool {
        switch self {
        case .field, .jsonField, .file: return true
        case .query, .header: return false
        }
    }
}
