import Foundation

/// Why ``ImageDownloader`` could not give an image, other than the transport's `URLError`s and
/// ``ImageDecodingError``.
public enum ImageDownloadError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The request has no URL.
    case missingURL
    /// The server answered with a status outside 200–299; nothing was decoded.
    case unacceptableStatus(Int, url: URL)

    public var description: String {
        switch self {
        case .missingURL: "the image request has no URL"
        case .unacceptableStatus(let status, let url): "HTTP \(status) from \(url.absoluteString); no image"
        }
    }
}
