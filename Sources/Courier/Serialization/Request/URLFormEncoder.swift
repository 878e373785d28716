import Foundation

/// Encodes an `Encodable` value as `application/x-www-form-urlencoded` text.
///
/// The rules are the ones ``HTTPRequestSerializer`` applies to dictionaries: keys sorted at every
/// level, `key[sub]=value` for nested values, `key[]=value` for arrays, `1`/`0` for booleans,
/// the bare key for an explicit `nil` (`encodeNil`), RFC 3986 escaping. Properties left out by
/// `encodeIfPresent` (the synthesized default for optionals) are omitted. Dates use their own
/// `Encodable` form (seconds since 2001-01-01).
public struct URLFormEncoder: Sendable {
    /// The encoding the escaped bytes are taken from. Default: UTF-8.
    public var stringEncoding: String.Encoding

    /// Creates an encoder. Default `stringEncoding`: UTF-8.
    public init(stringEncoding: String.Encoding = .utf8) {
        self.stringEncoding = stringEncoding
    }

    /// Returns the form-encoded text for `value`, which must encode as a keyed container.
    ///
    /// - Throws: ``RequestSerializationError`` when the value is not keyed at the top level,
    ///   its own `encode(to:)` fails, or a string cannot be represented in `stringEncoding`.
    public func encode<Value: Encodable>(_ value: Value) throws -> String {
        try QueryStringPair.queryString(from: Self.formValue(of: value), encoding: stringEncoding)
    }

    /// The form value tree of an `Encodable` value.
    static func formValue(of value: any Encodable) throws -> FormValue {
        let root = FormNode()
        do {
            try root.store(value, codingPath: [])
        } catch let error as RequestSerializationError {
            throw error
        } catch {
            throw RequestSerializationError.encodingFailed(String(describing: error))
        }
        return root.resolved()
    }
}

/// A node of the tree an `Encodable` value writes into while it is being encoded.
final class FormNode {
    private enum Content {
        case unset
        case value(FormValue)
        case keyed([String: FormNode])
        case unkeyed([FormNode])
    }

    private var content: Content = .unset

    /// The finished value of this node.
    func resolved() -> FormValue {
        switch content {
        case .unset: return .null
        case .value(let value): return value
        case .keyed(let children): return .dictionary(children.mapValues { $0.resolved() })
        case .unkeyed(let children): return .array(children.map { $0.resolved() })
        }
    }

    func setValue(_ value: FormValue) { content = .value(value) }

    func child(forKey key: String) -> FormNode {
        var children: [String: FormNode] = [:]
        if case .keyed(let existing) = content { children = existing }
        if let node = children[key] { return node }
        let node = FormNode()
        children[key] = node
        content = .keyed(children)
        return node
    }

    func makeKeyed() {
        if case .keyed = content { return }
        content = .keyed([:])
    }

    func appendChild() -> FormNode {
        var children: [FormNode] = []
        if case .unkeyed(let existing) = content { children = existing }
        let node = FormNode()
        children.append(node)
        content = .unkeyed(children)
        return node
    }

    func makeUnkeyed() {
        if case .unkeyed = content { return }
        content = .unkeyed([])
    }

    var unkeyedCount: Int {
        if case .unkeyed(let children) = content { return children.count }
        return 0
    }

    /// Stores `value`, writing scalars directly and letting other types encode themselves.
    func store(_ value: any Encodable, codingPath: [any CodingKey]) throws {
        switch value {
        case let text as String: setValue(.scalar(text))
        case let flag as Bool: setValue(.scalar(FormValue.text(for: flag)))
        case let number as Double: setValue(.scalar(FormValue.text(for: number)))
        case let number as Float: setValue(.scalar(FormValue.text(for: Double(number))))
        case let number as any BinaryInteger: setValue(.scalar(String(describing: number)))
        case let decimal as Decimal: setValue(.scalar(decimal.description))
        case let url as URL: setValue(.scalar(url.absoluteString))
        case let data as Data: setValue(.data(data))
        default:
            try value.encode(to: FormNodeEncoder(node: self, codingPath: codingPath))
        }
    }
}

/// The `Encoder` handed to `Encodable` values by ``URLFormEncoder``.
struct FormNodeEncoder: Encoder {
    let node: FormNode
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        node.makeKeyed()
        return KeyedEncodingContainer(FormKeyedContainer<Key>(node: node, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        node.makeUnkeyed()
        return FormUnkeyedContainer(node: node, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        FormSingleValueContainer(node: node, codingPath: codingPath)
    }
}

/// A coding key for array positions and `super`.
struct FormCodingKey: CodingKey {
    var stringValue: String
    var intValue: Int?
    init(stringValue: String) { self.stringValue = stringValue }
    init(intValue: Int) { self.stringValue = String(intValue); self.intValue = intValue }
}

struct FormKeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let node: FormNode
    let codingPath: [any CodingKey]

    mutating func encodeNil(forKey key: Key) throws { node.child(forKey: key.stringValue).setValue(.null) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: String, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: Double, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: Float, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: Int, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { try put(value, key) }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws { try put(value, key) }

    private func put(_ value: any Encodable, _ key: Key) throws {
        try node.child(forKey: key.stringValue).store(value, codingPath: codingPath + [key])
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        let child = node.child(forKey: key.stringValue)
        child.makeKeyed()
        return KeyedEncodingContainer(FormKeyedContainer<NestedKey>(node: child, codingPath: codingPath + [key]))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let child = node.child(forKey: key.stringValue)
        child.makeUnkeyed()
        return FormUnkeyedContainer(node: child, codingPath: codingPath + [key])
    }

    mutating func superEncoder() -> any Encoder {
        let key = FormCodingKey(stringValue: "super")
        return FormNodeEncoder(node: node.child(forKey: key.stringValue), codingPath: codingPath + [key])
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        FormNodeEncoder(node: node.child(forKey: key.stringValue), codingPath: codingPath + [key])
    }
}

struct FormUnkeyedContainer: UnkeyedEncodingContainer {
    let node: FormNode
    let codingPath: [any CodingKey]
    var count: Int { node.unkeyedCount }

    private var nextKey: FormCodingKey { FormCodingKey(intValue: count) }

    mutating func encodeNil() throws { node.appendChild().setValue(.null) }
    mutating func encode(_ value: Bool) throws { try put(value) }
    mutating func encode(_ value: String) throws { try put(value) }
    mutating func encode(_ value: Double) throws { try put(value) }
    mutating func encode(_ value: Float) throws { try put(value) }
    mutating func encode(_ value: Int) throws { try put(value) }
    mutating func encode(_ value: Int8) throws { try put(value) }
    mutating func encode(_ value: Int16) throws { try put(value) }
    mutating func encode(_ value: Int32) throws { try put(value) }
    mutating func encode(_ value: Int64) throws { try put(value) }
    mutating func encode(_ value: UInt) throws { try put(value) }
    mutating func encode(_ value: UInt8) throws { try put(value) }
    mutating func encode(_ value: UInt16) throws { try put(value) }
    mutating func encode(_ value: UInt32) throws { try put(value) }
    mutating func encode(_ value: UInt64) throws { try put(value) }
    mutating func encode<T: Encodable>(_ value: T) throws { try put(value) }

    private func put(_ value: any Encodable) throws {
        let key = nextKey
        try node.appendChild().store(value, codingPath: codingPath + [key])
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let key = nextKey
        let child = node.appendChild()
        child.makeKeyed()
        return KeyedEncodingContainer(FormKeyedContainer<NestedKey>(node: child, codingPath: codingPath + [key]))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let key = nextKey
        let child = node.appendChild()
        child.makeUnkeyed()
        return FormUnkeyedContainer(node: child, codingPath: codingPath + [key])
    }

    mutating func superEncoder() -> any Encoder {
        let key = nextKey
        return FormNodeEncoder(node: node.appendChild(), codingPath: codingPath + [key])
    }
}

struct FormSingleValueContainer: SingleValueEncodingContainer {
    let node: FormNode
    let codingPath: [any CodingKey]

    mutating func encodeNil() throws { node.setValue(.null) }
    mutating func encode(_ value: Bool) throws { try node.store(value, codingPath: codingPath) }
    mutating func encode(_ value: String) throws { try node.store(value, codingPath: codingPath) }
    mutating func encode(_ value: Double) throws { try node.store(value, codingPath: codingPath) }
    mutating func encode(_ value: Float) throws { try node.store(value, codingPath: codingPath) }
    mutating func encode(_ value: Int) throws { try node.store(value, codingPath: codingPath) }
    mutating func encode(_ value: Int8) throws { try node.store(value, codingPath: codingPath) }
    mutating func encode(_ value: Int16) throws { try node.store(value, codingPath: codingPath) }
    mutating func encode(_ value: Int32) throws { try node.store(value, codingPath: codingPath) }
    mutating func encode(_ value: Int64) throws { try node.store(value, codingPath: codingPath) }
    mutating func encode(_ value: UInt) throws { try node.store(value, codingPath: codingPath) }
    mutating func encode(_ value: UInt8) throws { try node.store(value, codingPath: codingPath) }
    mutating func encode(_ value: UInt16) throws { try node.store(value, codingPath: codingPath) }
    mutating func encode(_ value: UInt32) throws { try node.store(value, codingPath: codingPath) }
    mutating func encode(_ value: UInt64) throws { try node.store(value, codingPath: codingPath) }
    mutating func encode<T: Encodable>(_ value: T) throws { try node.store(value, codingPath: codingPath) }
}
