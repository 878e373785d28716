import Foundation

/// A parameter value reduced to what a query string or form body can express.
///
/// Both ways of giving parameters meet here: loosely typed dictionaries (``FormValue/init(any:)``)
/// and `Encodable` values (``URLFormEncoder``). The flattening into `key[sub]=value` pairs is
/// written once, in ``QueryStringPair``.
enum FormValue: Equatable, Sendable {
    /// `NSNull` or `nil`: the key alone, without `=`.
    case null
    /// A value written as text.
    case scalar(String)
    /// Raw bytes (used as-is by multipart forms, as UTF-8 text in query strings).
    case data(Data)
    /// A dictionary; its keys are sorted when flattened.
    case dictionary([String: FormValue])
    /// An array: every element under `key[]`.
    case array([FormValue])
    /// A set: every element under the same key, in sorted order.
    case set([FormValue])

    /// Text used to order the members of a set, like AFNetworking's sort on `description`.
    var sortText: String {
        switch self {
        case .null: return ""
        case .scalar(let text): return text
        case .data(let data): return String(decoding: data, as: UTF8.self)
        case .dictionary, .array, .set: return ""
        }
    }

    /// Converts a loosely typed parameter value (`[String: Any]`, `NSDictionary`, arrays, sets,
    /// strings, numbers, `NSNull`, `Optional`, `Data`, `URL`) into a form value.
    init(any value: Any) {
        if let unwrapped = Self.unwrapOptional(value) {
            guard let inner = unwrapped.value else { self = .null; return }
            self.init(any: inner)
            return
        }
        switch value {
        case is NSNull:
            self = .null
        case let text as String:
            self = .scalar(text)
        case let text as Substring:
            self = .scalar(String(text))
        case let flag as Bool where type(of: value) == Bool.self:
            self = .scalar(Self.text(for: flag))
        case let number as Double:
            self = .scalar(Self.text(for: number))
        case let number as Float:
            self = .scalar(Self.text(for: Double(number)))
        case let number as any BinaryInteger:
            self = .scalar(String(describing: number))
        case let number as NSNumber:
            self = .scalar(number.description)
        case let data as Data:
            self = .data(data)
        case let url as URL:
            self = .scalar(url.absoluteString)
        case let dictionary as [AnyHashable: Any]:
            var converted: [String: FormValue] = [:]
            for (key, element) in dictionary {
                converted[String(describing: key.base)] = FormValue(any: element)
            }
            self = .dictionary(converted)
        case let set as Set<AnyHashable>:
            self = .set(set.map { FormValue(any: $0.base) })
        case let array as [Any]:
            self = .array(array.map { FormValue(any: $0) })
        case let dictionary as NSDictionary:
            var converted: [String: FormValue] = [:]
            for (key, element) in dictionary {
                converted[String(describing: key)] = FormValue(any: element)
            }
            self = .dictionary(converted)
        case let set as NSSet:
            self = .set(set.allObjects.map { FormValue(any: $0) })
        case let array as NSArray:
            self = .array(array.map { FormValue(any: $0) })
        default:
            self = .scalar(String(describing: value))
        }
    }

    /// Booleans are written `1` and `0`, as AFNetworking writes `@YES` and `@NO`.
    static func text(for flag: Bool) -> String { flag ? "1" : "0" }

    /// Whole numbers are written without a fractional part (`1`, not `1.0`), as `NSNumber` does.
    static func text(for number: Double) -> String {
        if number.isFinite, number == number.rounded(), abs(number) < 1e15 {
            return String(Int64(number))
        }
        return number.description
    }

    /// `nil` when `value` is not an `Optional`; otherwise a box holding the wrapped value or nil.
    private static func unwrapOptional(_ value: Any) -> (value: Any?, Void)? {
        let mirror = Mirror(reflecting: value)
        guard mirror.displayStyle == .optional else { return nil }
        return (mirror.children.first?.value, ())
    }
}
