import Foundation

/// Decoding of `application/x-www-form-urlencoded` text (query strings and form bodies).
enum FormDecoding {
    /// Splits `text` into name/value pairs in order; `+` means space. Returns `nil` on invalid percent-encoding.
    static func pairs(_ text: Substring) -> [(name: String, value: String)]? {
        var result: [(name: String, value: String)] = []
        for item in text.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = decode(parts[0]) else { return nil }
            let value = parts.count > 1 ? decode(parts[1]) : ""
            guard let value else { return nil }
            result.append((name, value))
        }
        return result
    }

    /// The pairs of a request's query string (empty when there is none).
    static func query(_ query: String?) -> [(name: String, value: String)]? {
        guard let query else { return [] }
        return pairs(Substring(query))
    }

    /// httpbin's shape: a name maps to a string, or to an array of strings when repeated.
    static func json(_ pairs: [(name: String, value: String)]) -> JSONValue {
        JSONValue.grouping(pairs.map { ($0.name, JSONValue.string($0.value)) })
    }

    /// The last value for `name`, if any.
    static func value(_ name: String, in pairs: [(name: String, value: String)]) -> String? {
        pairs.last { $0.name == name }?.value
    }

    private static func decode(_ text: Substring) -> String? {
        text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding
    }
}
