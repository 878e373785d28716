import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Validates a response and turns its body into an object.
///
/// The counterpart of AFNetworking's `AFURLResponseSerialization`. Serializers are shared
/// between threads, hence `Sendable`.
public protocol URLResponseSerialization: Sendable {
    /// Returns the object decoded from `data`, or `nil` when the body holds nothing.
    ///
    /// - Parameters:
    ///   - response: the response the body belongs to, if any.
    ///   - data: the response body, if any.
    /// - Throws: a ``ResponseSerializationError`` when the response is unacceptable or the body
    ///   cannot be decoded.
    func responseObject(for response: URLResponse?, data: Data?) throws -> Any?

    /// Whether the objects this serializer returns may be handed to several threads at once: immutable values
    /// (`Data`, strings, numbers, Foundation's immutable collections, ``ReceivedImage``). A mutable object — an
    /// `XMLParser`, an `XMLDocument`, mutable containers — is not: an operation then makes a fresh one for each
    /// caller instead of keeping one to share. Default `false` (nothing is assumed about your own serializers).
    var returnsShareableObjects: Bool { get }
}

extension URLResponseSerialization {
    /// `false`: see ``URLResponseSerialization/returnsShareableObjects``.
    public var returnsShareableObjects: Bool { false }
}
