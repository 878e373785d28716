import Courier
import Foundation

/// A request as a ``StubTransport`` received it: what would have gone on the wire.
public struct RecordedRequest: Sendable {
    /// The URL.
    public let url: URL
    /// The method.
    public let method: String
    /// The header fields in the order given.
    public let headers: [(name: String, value: String)]
    /// The whole body, or `nil` when the request had none.
    public let body: Data?
    /// The idle timeout the request carried.
    public let timeoutInterval: TimeInterval

    /// The value of the first header field named `name` (case-insensitive), or `nil`.
    public func value(forHTTPHeaderField name: String) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    /// The URL's path, for routing: `/users/1`.
    public var path: String { url.path }
}
