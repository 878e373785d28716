import Foundation
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Validates a response and parses its body as a property list (XML or binary).
///
/// Acceptable content type: `application/x-plist`. An empty body gives `nil`.
///
/// Thread safety: the extra state is behind a `Mutex`, like the superclass's.
open class PropertyListResponseSerializer: HTTPResponseSerializer, @unchecked Sendable {
    private struct Options: Sendable {
        var format: PropertyListSerialization.PropertyListFormat = .xml
        var readOptions: PropertyListSerialization.ReadOptions = []
    }

    private let options = Mutex(Options())

    /// Creates a serializer expecting XML property lists (binary ones are read too).
    public required init() {
        super.init(acceptableContentTypes: ["application/x-plist"])
    }

    override func copyOwnSettings(to copy: HTTPResponseSerializer) {
        (copy as? PropertyListResponseSerializer)?.options.withLock { $0 = options.withLock { $0 } }
    }

    /// The expected format. Default: `.xml`. Parsing detects the actual format, so binary
    /// property lists are read whatever this says; it documents intent, as in AFNetworking.
    public var format: PropertyListSerialization.PropertyListFormat {
        get { options.withLock { $0.format } }
        set { options.withLock { $0.format = newValue } }
    }

    /// `true` unless ``readOptions`` asks for mutable containers or leaves.
    open override var returnsShareableObjects: Bool {
        readOptions.isDisjoint(with: [.mutableContainers, .mutableContainersAndLeaves])
    }

    /// The options used to read property lists. Default: none (immutable containers).
    public var readOptions: PropertyListSerialization.ReadOptions {
        get { options.withLock { $0.readOptions } }
        set { options.withLock { $0.readOptions = newValue } }
    }

    /// Validates, then parses the property list.
    ///
    /// - Throws: the validation errors or ``ResponseSerializationError/invalidPropertyList(reason:response:data:)``.
    open override func responseObject(for response: URLResponse?, data: Data?) throws -> Any? {
        try validate(response: response, data: data)
        guard let data, !data.isEmpty else { return nil }
        do {
            return try PropertyListSerialization.propertyList(from: data, options: readOptions, format: nil)
        } catch {
            throw ResponseSerializationError.invalidPropertyList(reason: String(describing: error), response: response, data: data)
        }
    }
}
