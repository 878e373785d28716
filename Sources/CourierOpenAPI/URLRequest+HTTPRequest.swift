import Foundation
import HTTPTypes
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension URLRequest {
    /// The `URLRequest` for `request` on the server at `baseURL` (see ``RequestURL``): its method and its header
    /// fields, without a body.
    ///
    /// A `URLRequest` holds one value per field name, so the values of a repeated field are joined in order, with
    /// `"; "` for `Cookie` (RFC 9113 §8.2.3) and `", "` for every other field (RFC 9110 §5.3). The field name keeps
    /// the spelling of its first occurrence.
    /// - Throws: ``CourierTransportError`` when no URL can be made.
    init(_ request: HTTPRequest, baseURL: URL) throws {
        self.init(url: try RequestURL.make(for: request, baseURL: baseURL))
        httpMethod = request.method.rawValue
        var order: [HTTPField.Name] = []
        var values: [HTTPField.Name: [String]] = [:]
        for field in request.headerFields {
            if values[field.name] == nil { order.append(field.name) }
            values[field.name, default: []].append(field.value)
        }
        for name in order {
            guard let joined = values[name] else { continue }
            setValue(joined.joined(separator: name == .cookie ? "; " : ", "), forHTTPHeaderField: name.rawName)
        }
    }
}
