import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Turns a request and its parameters into the request that goes on the wire.
///
/// The counterpart of AFNetworking's `AFURLRequestSerialization`: a serializer decides where the
/// parameters go (query string, form body, JSON, property list) and which default headers the
/// request gets. Serializers are shared between threads, hence `Sendable`.
public protocol URLRequestSerialization: Sendable {
    /// Returns `request` with `parameters` encoded into it.
    ///
    /// - Parameters:
    ///   - request: the request to start from; it is not modified.
    ///   - parameters: the parameters to encode, or `nil` for none.
    /// - Throws: a ``RequestSerializationError`` when the parameters cannot be encoded.
    func request(bySerializing request: URLRequest, withParameters parameters: Any?) throws -> URLRequest
}
