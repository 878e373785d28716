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
}
