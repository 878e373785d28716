import Foundation

/// One `field=value` component of a query string or form body, before escaping.
///
/// The rules are AFNetworking's: dictionary keys sorted at every level, `key[sub]` for
/// dictionaries, `key[]` for arrays, the same key repeated for sets, and the bare key for a null.
struct QueryStringPair: Equatable, Sendable {
    /// The field name, already nested (`user[name]`, `tags[]`).
    var field: String
    /// The value, or `nil` for a null (written as the bare field).
    var value: FormValue?

    /// Flattens `value` under `key` (`nil` at the top level) into pairs.
    static func pairs(key: String?, value: FormValue) -> [QueryStringPair] {
        switch value {
        case .dictionary(let dictionary):
            return dictionary.keys.sorted().flatMap { nestedKey -> [QueryStringPair] in
                let field = key.map { "\($0)[\(nestedKey)]" } ?? nestedKey
                return pairs(key: field, value: dictionary[nestedKey] ?? .null)
            }
        case .array(let elements):
            let field = "\(key ?? "")[]"
            return elements.flatMap { pairs(key: field, value: $0) }
        case .set(let members):
            let ordered = members.enumerated().sorted { lhs, rhs in
                let (left, right) = (lhs.element.sortText, rhs.element.sortText)
                return left == right ? lhs.offset < rhs.offset : left < right
            }
            return ordered.flatMap { pairs(key: key, value: $0.element) }
        case .null:
            return [QueryStringPair(field: key ?? "", value: nil)]
        case .scalar, .data:
            return [QueryStringPair(field: key ?? "", value: value)]
        }
    }

    /// The escaped `field=value` (or bare `field` for a null).
    func escaped(encoding: String.Encoding) throws -> String {
        let escapedField = try PercentEscaping.escape(field, encoding: encoding)
        switch value {
        case nil, .null?:
            return escapedField
        case .scalar(let text)?:
            return escapedField + "=" + (try PercentEscaping.escape(text, encoding: encoding))
        case .data(let data)?:
            let text = String(decoding: data, as: UTF8.self)
            return escapedField + "=" + (try PercentEscaping.escape(text, encoding: encoding))
        case .dictionary?, .array?, .set?:
            // `pairs(key:value:)` never leaves a container in a pair.
            return escapedField
        }
    }

    /// The complete query string for top-level parameters: escaped pairs joined by `&`.
    ///
    /// - Throws: ``RequestSerializationError/unsupportedParameters(_:)`` unless the top level is
    ///   a dictionary, and ``RequestSerializationError/unrepresentableString(_:encoding:)``.
    static func queryString(from parameters: FormValue, encoding: String.Encoding) throws -> String {
        guard case .dictionary = parameters else {
            throw RequestSerializationError.unsupportedParameters("a query string needs a dictionary (or keyed Encodable) at the top level")
        }
        return try pairs(key: nil, value: parameters).map { try $0.escaped(encoding: encoding) }.joined(separator: "&")
    }
}
