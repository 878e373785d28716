import Foundation

/// Why a ``CourierTransport`` could not make a request, or read a response, from what it was given.
public enum CourierTransportError: Error, Equatable, Sendable, CustomStringConvertible, LocalizedError {
    /// The server URL is not an absolute URL with a scheme and a host.
    case invalidBaseURL(URL)
    /// The request's path is not an origin-form path (`/` followed by a percent-encoded path and query): it does
    /// not start with `/`, it contains a fragment (`#`), or a `%` is not followed by two hexadecimal digits.
    case invalidRequestPath(String, reason: String)
    /// The request's scheme or authority, in place of the server URL's, does not make a URL.
    case invalidRequestTarget(scheme: String, authority: String)
    /// The server URL and the request's path together do not make a URL.
    case invalidRequestURL(baseURL: URL, path: String)
    /// A request body of known length, read into memory before it is sent, produced another number of bytes:
    /// fewer, or (`produced` counting the chunk that went past it, after which reading stopped) more.
    case requestBodyLengthMismatch(declared: Int64, produced: Int64)
    /// The response's status code is outside 0...999, which an `HTTPResponse` cannot hold.
    case invalidResponseStatus(Int)

    /// A one-line explanation naming the offending value.
    public var description: String {
        switch self {
        case .invalidBaseURL(let url):
            return "The server URL \(url.absoluteString.debugDescription) is not an absolute URL with a scheme and a host."
        case .invalidRequestPath(let path, let reason):
            return "The request path \(path.debugDescription) is not a valid origin-form path: \(reason)."
        case .invalidRequestTarget(let scheme, let authority):
            return "The request's scheme \(scheme.debugDescription) and authority \(authority.debugDescription) do not make a URL."
        case .invalidRequestURL(let baseURL, let path):
            return "The server URL \(baseURL.absoluteString.debugDescription) and the request path \(path.debugDescription) do not make a URL."
        case .requestBodyLengthMismatch(let declared, let produced) where produced > declared:
            return "The request body's length is \(declared) bytes, but its sequence produced more (at least \(produced))."
        case .requestBodyLengthMismatch(let declared, let produced):
            return "The request body's length is \(declared) bytes, but its sequence produced \(produced)."
        case .invalidResponseStatus(let code):
            return "The response's status code \(code) is outside 0...999."
        }
    }

    /// The same text as ``description``.
    public var errorDescription: String? { description }
}
