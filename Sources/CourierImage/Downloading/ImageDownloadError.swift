import Foundation

/// Why ``ImageDownloader`` could not give an image, other than the transport's `URLError`s and
/// ``ImageDecodingError``.
public enum ImageDownloadError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The request has no URL.
    case missingURL
    /// The server answered with a status outside 200–299; nothing was decoded.
    case unacceptableStatus(Int, url: URL)
    /// The body is longer than ``ImageDownloader/maximumImageBytes`` (announced, or as it arrived); nothing was decoded.
    case tooLarge(limit: Int, url: URL)

    public var description: String {
        switch self {
        case .missingURL: "the image request has no URL"
        case .unacceptableStatus(let status, let url): "HTTP \(status) from \(url.absoluteString); no image"
        case .tooLarge(let limit, let url): "the image at \(url.absoluteString) is longer than the \(limit) bytes allowed; not decoded"
        }
    }
}
