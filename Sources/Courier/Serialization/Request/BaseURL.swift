import Foundation

/// How a manager's base URL and the paths given to it become request URLs: one rule for both façades
/// (``HTTPSessionManager`` and ``HTTPRequestOperationManager``), as `URL(string:relativeTo:)` resolves.
enum BaseURL {
    /// `url` with a trailing slash when it has a path without one (`…/v1` becomes `…/v1/`), so that a relative path
    /// resolves under it rather than beside it, as AFNetworking 2.0's managers do.
    static func normalized(_ url: URL?) -> URL? {
        guard let url, !url.path.isEmpty, !url.absoluteString.hasSuffix("/") else { return url }
        return url.appendingPathComponent("")
    }

    /// `urlString` resolved against `base` (an absolute URL string is kept as it is), as an absolute URL string.
    /// - Throws: ``RequestSerializationError/invalidURL(_:)`` naming `urlString` when it is not a URL.
    static func resolve(_ urlString: String, against base: URL?) throws(RequestSerializationError) -> String {
        guard let url = URL(string: urlString, relativeTo: base) else {
            throw RequestSerializationError.invalidURL(urlString)
        }
        return url.absoluteString
    }
}
