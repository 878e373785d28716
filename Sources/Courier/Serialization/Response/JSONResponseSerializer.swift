import Foundation
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Validates a response and parses its body as JSON.
///
/// Acceptable content types: `application/json`, `text/json`, `text/javascript`. An empty body
/// or a body of a single space (what some servers send for `head :ok`) gives `nil` without
/// error. A body in another charset than UTF-8 is transcoded first.
///
/// Thread safety: the extra state is behind a `Mutex`, like the superclass's.
open class JSONResponseSerializer: HTTPResponseSerializer, @unchecked Sendable {
    private struct Options: Sendable {
        var readingOptions: JSONSerialization.ReadingOptions = []
        var removesKeysWithNullValues = false
    }

    private let options = Mutex(Options())

    /// Creates a serializer with no reading options that keeps null values.
    public required init() {
        super.init(acceptableContentTypes: ["application/json", "text/json", "text/javascript"])
    }

    override func copyOwnSettings(to copy: HTTPResponseSerializer) {
        (copy as? JSONResponseSerializer)?.options.withLock { $0 = options.withLock { $0 } }
    }

    /// `true` unless ``readingOptions`` asks for mutable containers or leaves.
    open override var returnsShareableObjects: Bool {
        readingOptions.isDisjoint(with: [.mutableContainers, .mutableLeaves])
    }

    /// The options used to read JSON. Default: none (`[]`).
    public var readingOptions: JSONSerialization.ReadingOptions {
        get { options.withLock { $0.readingOptions } }
        set { options.withLock { $0.readingOptions = newValue } }
    }

    /// Whether keys whose value is null are removed from every dictionary, at every depth
    /// (inside arrays too). Default: `false`. Null elements of arrays are kept.
    public var removesKeysWithNullValues: Bool {
        get { options.withLock { $0.removesKeysWithNullValues } }
        set { options.withLock { $0.removesKeysWithNullValues = newValue } }
    }

    /// Validates, then parses the JSON body.
    ///
    /// - Throws: the validation errors, ``ResponseSerializationError/undecodableText(encoding:response:data:)``
    ///   or ``ResponseSerializationError/invalidJSON(reason:response:data:)`` (which keeps the data).
    open override func responseObject(for response: URLResponse?, data: Data?) throws -> Any? {
        try validate(response: response, data: data)
        guard let data, !data.isEmpty, data != Data(" ".utf8) else { return nil }
        let current = options.withLock { $0 }
        let json = try utf8Data(for: response, data: data)
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: json, options: current.readingOptions)
        } catch {
            throw ResponseSerializationError.invalidJSON(reason: String(describing: error), response: response, data: data)
        }
        return current.removesKeysWithNullValues ? Self.removingKeysWithNullValues(from: object) : object
    }

    /// `object` with every dictionary key whose value is `NSNull` removed, recursively.
    static func removingKeysWithNullValues(from object: Any) -> Any {
        if let array = object as? [Any] {
            return array.map { removingKeysWithNullValues(from: $0) }
        }
        if let dictionary = object as? [String: Any] {
            var cleaned: [String: Any] = [:]
            for (key, value) in dictionary where !(value is NSNull) {
                cleaned[key] = removingKeysWithNullValues(from: value)
            }
            return cleaned
        }
        return object
    }
}
