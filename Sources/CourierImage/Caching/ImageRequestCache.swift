import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Where ``ImageDownloader`` keeps decoded images (AFNetworking's `AFImageRequestCache`): by an identifier made of
/// the request's URL and the processor's ``ImageProcessor/identifier``. ``AutoPurgingImageCache`` is the default;
/// implementations must be safe to call from any thread.
public protocol ImageRequestCache: Sendable {
    /// Keeps `image` under `identifier`.
    func add(_ image: Image, withIdentifier identifier: String)
    /// The image kept under `identifier`, if any.
    func image(withIdentifier identifier: String) -> Image?
    /// Forgets the image kept under `identifier`; whether there was one.
    @discardableResult func removeImage(withIdentifier identifier: String) -> Bool
    /// Forgets every image.
    func removeAllImages()
}

extension ImageRequestCache {
    /// The identifier of `request`'s image after `processor`: the URL, and `#` and the processor's identifier when
    /// there is one. `nil` for a request without a URL.
    public static func identifier(for request: URLRequest, processor: (any ImageProcessor)?) -> String? {
        guard let url = request.url?.absoluteString else { return nil }
        return processor.map { "\(url)#\($0.identifier)" } ?? url
    }
}
