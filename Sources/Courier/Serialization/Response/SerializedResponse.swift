import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A serialized response body on its way to its readers: what a serializer made of it, or why it refused.
///
/// `@unchecked Sendable`, soundly: operations and tasks keep one for several readers only when its serializer
/// returns shareable objects (``URLResponseSerialization/returnsShareableObjects``: immutable values). A mutable
/// object (an `XMLParser`, an `XMLDocument`, mutable containers, a decoded class) is made afresh for each reader
/// and handed over once, never kept or shared.
struct SerializedResponse: @unchecked Sendable {
    let object: Any?
    let error: (any Error)?

    init(object: Any?, error: (any Error)?) {
        self.object = object
        self.error = error
    }

    /// What `serializer` makes of `data`.
    init(serializer: any URLResponseSerialization, response: URLResponse?, data: Data?) {
        do {
            self.init(object: try serializer.responseObject(for: response, data: data), error: nil)
        } catch {
            self.init(object: nil, error: error)
        }
    }
}
