import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Tries several response serializers in order; the first that succeeds gives the result.
///
/// When every component fails, the first component's error is thrown. With no components it
/// behaves like ``HTTPResponseSerializer`` (validate, return the data).
///
/// Thread safety: its only stored property of its own is immutable (`let`) and `Sendable`; the
/// inherited state is behind the superclass's `Mutex`.
open class CompoundResponseSerializer: HTTPResponseSerializer, @unchecked Sendable {
    /// The component serializers, in the order they are tried. Immutable.
    public let responseSerializers: [any URLResponseSerialization]

    /// Creates a compound serializer over `responseSerializers`.
    public init(responseSerializers: [any URLResponseSerialization]) {
        self.responseSerializers = responseSerializers
        super.init()
    }

    /// A compound serializer with no components (it validates and returns the data).
    public required convenience init() {
        self.init(responseSerializers: [])
    }

    /// A compound serializer over the same components (not copies of them, as AFNetworking's), with the same
    /// settings.
    open override func copy(with zone: NSZone? = nil) -> Any {
        let copy = CompoundResponseSerializer(responseSerializers: responseSerializers)
        copySettings(to: copy)
        return copy
    }

    /// Whether every component returns shareable objects.
    open override var returnsShareableObjects: Bool {
        responseSerializers.allSatisfy(\.returnsShareableObjects)
    }

    /// The result of the first component that succeeds.
    ///
    /// - Throws: the first component's error when all fail.
    open override func responseObject(for response: URLResponse?, data: Data?) throws -> Any? {
        guard !responseSerializers.isEmpty else {
            return try super.responseObject(for: response, data: data)
        }
        var firstError: (any Error)?
        for serializer in responseSerializers {
            do {
                return try serializer.responseObject(for: response, data: data)
            } catch {
                if firstError == nil { firstError = error }
            }
        }
        if let firstError { throw firstError }
        return nil
    }
}
