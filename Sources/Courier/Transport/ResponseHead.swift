import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension HTTPURLResponse {
    /// A response head from header fields as received, in order: a repeated name's values are joined with `", "`
    /// (RFC 9110 §5.3), which is the one form `HTTPURLResponse` can hold. `nil` when Foundation refuses the values.
    static func received<Fields: Sequence>(
        url: URL, statusCode: Int, httpVersion: String, fields: Fields
    ) -> HTTPURLResponse? where Fields.Element == (name: String, value: String) {
        HTTPURLResponse(url: url, statusCode: statusCode, httpVersion: httpVersion, headerFields: joined(fields))
    }

    /// `fields` as one value per name: a repeated name's values joined with `", "`, in order.
    static func joined<Fields: Sequence>(_ fields: Fields) -> [String: String] where Fields.Element == (name: String, value: String) {
        var joined = [String: String](minimumCapacity: fields.underestimatedCount)
        for (name, value) in fields {
            if let existing = joined[name] {
                joined[name] = existing + ", " + value
            } else {
                joined[name] = value
            }
        }
        return joined
    }
}
