import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The built-in ways of writing parameters as a query string.
public enum HTTPRequestQueryStringSerializationStyle: Sendable, Equatable {
    /// AFNetworking's rules: sorted keys, `key[sub]=value`, `key[]=value`, RFC 3986 escaping.
    case `default`
}

/// Writes the parameters of `request` as a query string. Throw to fail the serialization.
public typealias QueryStringSerializationBlock = @Sendable (_ request: URLRequest, _ parameters: Any) throws -> String

/// How an ``HTTPRequestSerializer`` writes query strings and form bodies.
enum QueryStringSerialization: Sendable {
    case style(HTTPRequestQueryStringSerializationStyle)
    case block(QueryStringSerializationBlock)

    /// The query string for `parameters`, given the request being built.
    func queryString(for request: URLRequest, parameters: Any, encoding: String.Encoding) throws -> String {
        switch self {
        case .style(.default):
            return try QueryStringPair.queryString(from: Self.formValue(of: parameters), encoding: encoding)
        case .block(let block):
            return try block(request, parameters)
        }
    }

    /// Dictionaries (Swift or Foundation) go through ``FormValue/init(any:)``; other `Encodable`
    /// values through the form encoder, so both follow the same rules.
    static func formValue(of parameters: Any) throws -> FormValue {
        if parameters is [AnyHashable: Any] || parameters is NSDictionary {
            return FormValue(any: parameters)
        }
        if let encodable = parameters as? any Encodable {
            return try URLFormEncoder.formValue(of: encodable)
        }
        return FormValue(any: parameters)
    }
}
