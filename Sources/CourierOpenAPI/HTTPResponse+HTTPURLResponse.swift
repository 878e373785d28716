import Foundation
import HTTPTypes
import OpenAPIRuntime
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension HTTPResponse {
    /// The status and every header field of `response`.
    ///
    /// `HTTPURLResponse` holds one value per field name (Courier joins a repeated field's values with `", "`), so a
    /// repeated field arrives as one field with the joined value. A field whose name is not a valid HTTP token is
    /// left out, since `HTTPFields` cannot hold it. Fields are in the order of their names (`HTTPURLResponse` keeps
    /// no order).
    /// - Throws: ``CourierTransportError/invalidResponseStatus(_:)`` for a status outside 0...999.
    init(_ response: HTTPURLResponse) throws {
        guard (0...999).contains(response.statusCode) else {
            throw CourierTransportError.invalidResponseStatus(response.statusCode)
        }
        var fields = HTTPFields()
        let received = response.allHeaderFields.compactMap { key, value -> (name: String, value: String)? in
            guard let name = key as? String, let value = value as? String else { return nil }
            return (name, value)
        }
        fields.reserveCapacity(received.count)
        for (rawName, value) in received.sorted(by: { $0.name.lowercased() < $1.name.lowercased() }) {
            guard let name = HTTPField.Name(rawName) else { continue }
            fields.append(HTTPField(name: name, value: value))
        }
        self.init(status: .init(code: response.statusCode), headerFields: fields)
    }
}

extension HTTPBody.Length {
    /// The length `response` announces (its `Content-Length`), or `.unknown`.
    init(_ response: HTTPURLResponse) {
        self = response.expectedContentLength >= 0 ? .known(response.expectedContentLength) : .unknown
    }
}
