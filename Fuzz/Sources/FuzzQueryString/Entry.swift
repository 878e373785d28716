import Foundation
import FuzzDriver

/// libFuzzer entry point: the input describes a parameter tree (dictionaries, arrays, sets, nulls, strings and data,
/// with any Unicode in keys and values), written as a query string or `application/x-www-form-urlencoded` body by
/// `QueryStringPair` (the code behind `HTTPRequestSerializer` and `URLFormEncoder`).
///
/// Checks that the text holds only unreserved characters, `%XX` escapes, `=` and `&`; that splitting it at `&` and
/// the first `=` and unescaping gives back exactly the pairs of AFNetworking's documented rules (keys sorted at every
/// level, `key[sub]`, `key[]`, the bare key for a null), computed here independently, one pair per leaf; that the
/// same tree given as loosely typed Swift values (`FormValue(any:)`) or as an `Encodable` (`URLFormEncoder`) encodes
/// the same; and that an ISO Latin 1 encoding either refuses a character it cannot hold or round-trips.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let start, count > 0 else { return 0 }
    var reader = FuzzInput(start, count: count, maximumChunk: 0x1F)
    let tree = reader.dictionary(depth: 0)

    let query: String
    do {
        query = try QueryStringPair.queryString(from: tree, encoding: .utf8)
    } catch {
        preconditionFailure("UTF-8 refused a tree: \(error)")
    }
    precondition(query.utf8.allSatisfy { allowedInQuery.contains($0) }, "a character left unescaped: \(query.debugDescription)")

    let expected = flattened(tree, key: nil)
    precondition(expected.count == leaves(of: tree), "not one pair per leaf")
    precondition(QueryStringPair.pairs(key: nil, value: tree).count == expected.count, "pairs(key:value:) counts differently")
    if expected.isEmpty {
        precondition(query.isEmpty, "text for no pairs: \(query.debugDescription)")
    } else {
        let decoded = query.split(separator: "&", omittingEmptySubsequences: false).map { component -> ExpectedPair in
            guard let equals = component.firstIndex(of: "=") else { return ExpectedPair(field: unescaped(component, as: .utf8), value: nil) }
            return ExpectedPair(field: unescaped(component[..<equals], as: .utf8), value: unescaped(component[component.index(after: equals)...], as: .utf8))
        }
        precondition(decoded == expected, "\(query.debugDescription) decodes to \(decoded), not \(expected)")
    }

    // The same tree through the two public ways in: loosely typed values and an Encodable.
    if let any = anyValue(of: tree) {
        precondition(FormValue(any: any) == tree, "FormValue(any:) reads the tree differently")
    }
    if let node = EncodableNode(tree) {
        do {
            let encoded = try URLFormEncoder().encode(node)
            precondition(encoded == query, "URLFormEncoder writes \(encoded.debugDescription), not \(query.debugDescription)")
        } catch {
            preconditionFailure("URLFormEncoder refused a tree: \(error)")
        }
    }

    // A narrower encoding refuses what it cannot hold; what it writes decodes back in it.
    do {
        let latin = try QueryStringPair.queryString(from: tree, encoding: .isoLatin1)
        if !expected.isEmpty {
            let decoded = latin.split(separator: "&", omittingEmptySubsequences: false).map { component -> ExpectedPair in
                guard let equals = component.firstIndex(of: "=") else { return ExpectedPair(field: unescaped(component, as: .isoLatin1), value: nil) }
                return ExpectedPair(field: unescaped(component[..<equals], as: .isoLatin1), value: unescaped(component[component.index(after: equals)...], as: .isoLatin1))
            }
            precondition(decoded == expected, "ISO Latin 1: \(latin.debugDescription) decodes to \(decoded), not \(expected)")
        }
    } catch RequestSerializationError.unrepresentableString(let text, encoding: _) {
        precondition(text.unicodeScalars.contains { $0.value > 0xFF }, "ISO Latin 1 refused \(text.debugDescription)")
    } catch {
        preconditionFailure("an unexpected error: \(error)")
    }
    return 0
}

/// What the written text may hold: the characters left as they are (ASCII letters and digits, `-._~/?`), `%` of
/// the escapes, and the `=` and `&` that join fields and values.
private let allowedInQuery = Set(Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~/?%=&".utf8))

/// One `field=value` as the documented rules make it: the value's text, or `nil` for a null (the bare field).
private struct ExpectedPair: Equatable, CustomStringConvertible {
    let field: String
    let value: String?
    var description: String { value.map { "\(field.debugDescription)=\($0.debugDescription)" } ?? field.debugDescription }
}

/// The pairs of `value` under `key`, written from the rules (not from `QueryStringPair`): dictionary keys sorted,
/// `key[sub]` for a dictionary's members, `key[]` for an array's elements, a set's members under the key itself in
/// the order of their text (stable), data as UTF-8 text.
private func flattened(_ value: FormValue, key: String?) -> [ExpectedPair] {
    switch value {
    case .null:
        return [ExpectedPair(field: key ?? "", value: nil)]
    case .scalar(let text):
        return [ExpectedPair(field: key ?? "", value: text)]
    case .data(let data):
        return [ExpectedPair(field: key ?? "", value: String(decoding: data, as: UTF8.self))]
    case .dictionary(let members):
        return members.sorted { $0.key < $1.key }.flatMap { member in
            flattened(member.value, key: key.map { "\($0)[\(member.key)]" } ?? member.key)
        }
    case .array(let elements):
        return elements.flatMap { flattened($0, key: (key ?? "") + "[]") }
    case .set(let members):
        let keyed = members.enumerated().map { (text: orderingText($0.element), offset: $0.offset, element: $0.element) }
        let ordered = keyed.sorted { $0.text == $1.text ? $0.offset < $1.offset : $0.text < $1.text }
        return ordered.flatMap { flattened($0.element, key: key) }
    }
}

/// The text a set's member is ordered by: its own text for a leaf, nothing for a container.
private func orderingText(_ value: FormValue) -> String {
    switch value {
    case .scalar(let text): return text
    case .data(let data): return String(decoding: data, as: UTF8.self)
    case .null, .dictionary, .array, .set: return ""
    }
}

/// The number of leaves (nulls, strings, data) in `value`.
private func leaves(of value: FormValue) -> Int {
    switch value {
    case .null, .scalar, .data: return 1
    case .dictionary(let members): return members.values.reduce(0) { $0 + leaves(of: $1) }
    case .array(let elements), .set(let elements): return elements.reduce(0) { $0 + leaves(of: $1) }
    }
}

/// `%XX` escapes turned back into bytes of `encoding`, and those bytes into text. An escape that is not two
/// uppercase hexadecimal digits is a failure of the encoder.
private func unescaped(_ text: Substring, as encoding: String.Encoding) -> String {
    var bytes: [UInt8] = []
    var index = text.utf8.startIndex
    let utf8 = text.utf8
    while index < utf8.endIndex {
        let byte = utf8[index]
        guard byte == UInt8(ascii: "%") else {
            bytes.append(byte)
            index = utf8.index(after: index)
            continue
        }
        let high = utf8.index(after: index)
        precondition(high < utf8.endIndex, "an escape cut short in \(text.debugDescription)")
        let low = utf8.index(after: high)
        precondition(low < utf8.endIndex, "an escape cut short in \(text.debugDescription)")
        guard let first = hexValue(utf8[high]), let second = hexValue(utf8[low]) else {
            preconditionFailure("an escape that is not two uppercase hexadecimal digits in \(text.debugDescription)")
        }
        bytes.append(first << 4 | second)
        index = utf8.index(after: low)
    }
    if encoding == .utf8 { return String(decoding: bytes, as: UTF8.self) }
    // ISO Latin 1: every byte is the scalar of the same value.
    return String(String.UnicodeScalarView(bytes.map { Unicode.Scalar($0) }))
}

private func hexValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
    case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
    default: return nil
    }
}

/// The tree as the loosely typed values an app hands over (`[String: Any]`, `[Any]`, `Set<AnyHashable>`, `NSNull`,
/// `String`, `Data`); `nil` when a set holds a container or two equal members, which a Swift set cannot keep.
private func anyValue(of value: FormValue) -> Any? {
    switch value {
    case .null: return NSNull()
    case .scalar(let text): return text
    case .data(let data): return data
    case .dictionary(let members):
        var result: [String: Any] = [:]
        for (key, member) in members {
            guard let converted = anyValue(of: member) else { return nil }
            result[key] = converted
        }
        return result
    case .array(let elements):
        var result: [Any] = []
        for element in elements {
            guard let converted = anyValue(of: element) else { return nil }
            result.append(converted)
        }
        return result
    case .set:
        // A Swift set has no order of its own, so the member order of the tree cannot be kept; sets are checked
        // through QueryStringPair directly.
        return nil
    }
}

/// The tree as an `Encodable`, for `URLFormEncoder` (which has no sets and writes data as its bytes): `nil` when the
/// tree holds a set.
private indirect enum EncodableNode: Encodable {
    case null
    case text(String)
    case data(Data)
    case keyed([String: EncodableNode])
    case unkeyed([EncodableNode])

    init?(_ value: FormValue) {
        switch value {
        case .null: self = .null
        case .scalar(let text): self = .text(text)
        case .data(let data): self = .data(data)
        case .dictionary(let members):
            var converted: [String: EncodableNode] = [:]
            for (key, member) in members {
                guard let node = EncodableNode(member) else { return nil }
                converted[key] = node
            }
            self = .keyed(converted)
        case .array(let elements):
            var converted: [EncodableNode] = []
            for element in elements {
                guard let node = EncodableNode(element) else { return nil }
                converted.append(node)
            }
            self = .unkeyed(converted)
        case .set:
            return nil
        }
    }

    func encode(to encoder: any Encoder) throws {
        switch self {
        case .null:
            var container = encoder.singleValueContainer()
            try container.encodeNil()
        case .text(let text):
            var container = encoder.singleValueContainer()
            try container.encode(text)
        case .data(let data):
            var container = encoder.singleValueContainer()
            try container.encode(data)
        case .keyed(let members):
            var container = encoder.container(keyedBy: NodeKey.self)
            for (key, member) in members {
                try container.encode(member, forKey: NodeKey(stringValue: key))
            }
        case .unkeyed(let elements):
            var container = encoder.unkeyedContainer()
            for element in elements {
                try container.encode(element)
            }
        }
    }
}

private struct NodeKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

/// Reads a parameter tree from the fuzzer's bytes: a kind byte, then counts and length-prefixed strings (at most 31
/// bytes). Depth and widths are bounded so that one input stays small.
extension FuzzInput {
    mutating func dictionary(depth: Int) -> FormValue {
        let width = Int(byte() ?? 0) % 6
        var members: [String: FormValue] = [:]
        for _ in 0..<width {
            let key = text()
            members[key] = value(depth: depth + 1)
        }
        return .dictionary(members)
    }

    mutating func value(depth: Int) -> FormValue {
        let kind = Int(byte() ?? 1) % 6
        switch kind {
        case 0: return .null
        case 1: return .scalar(text())
        case 2: return .data(Data(chunk()))
        case 3 where depth < 4: return dictionary(depth: depth)
        case 4 where depth < 4, 5 where depth < 4:
            let width = Int(byte() ?? 0) % 5
            var elements: [FormValue] = []
            for _ in 0..<width { elements.append(value(depth: depth + 1)) }
            return kind == 4 ? .array(elements) : .set(elements)
        default:
            return .scalar(text())
        }
    }
}
