import Foundation
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Validates a response and reads its body as an image, returning a ``ReceivedImage``.
///
/// Acceptable content types are AFNetworking's (`image/tiff`, `image/jpeg`, `image/gif`,
/// `image/png`, `image/ico`, `image/x-icon`, `image/bmp`, `image/x-bmp`, `image/x-xbitmap`,
/// `image/x-win-bitmap`) plus `image/webp`. The format and pixel size come from the header
/// (PNG, JPEG, GIF, BMP, WebP, TIFF, ICO); an unknown, corrupt or truncated image is an error.
/// An empty body gives `nil`.
///
/// Thread safety: the extra state (``imageScale``) is behind a `Mutex`, like the superclass's.
open class ImageResponseSerializer: HTTPResponseSerializer, @unchecked Sendable {
    private let scale = Mutex<Double>(1)

    /// Creates a serializer for AFNetworking's image types plus WebP, with scale 1.
    public required init() {
        super.init(acceptableContentTypes: [
            "image/tiff", "image/jpeg", "image/gif", "image/png", "image/ico", "image/x-icon",
            "image/bmp", "image/x-bmp", "image/x-xbitmap", "image/x-win-bitmap", "image/webp",
        ])
    }

    override func copyOwnSettings(to copy: HTTPResponseSerializer) {
        (copy as? ImageResponseSerializer)?.imageScale = imageScale
    }

    /// The scale recorded in each ``ReceivedImage``. Default: 1. (AFNetworking used the
    /// screen's scale; Linux has no screen.)
    public var imageScale: Double {
        get { scale.withLock { $0 } }
        set { scale.withLock { $0 = newValue } }
    }

    /// Validates, then reads the image header.
    ///
    /// - Throws: the validation errors or ``ResponseSerializationError/invalidImage(reason:response:data:)``.
    open override func responseObject(for response: URLResponse?, data: Data?) throws -> Any? {
        try validate(response: response, data: data)
        guard let data, !data.isEmpty else { return nil }
        do {
            let header = try ImageHeader.parse([UInt8](data))
            return ReceivedImage(data: data, header: header, scale: imageScale)
        } catch {
            throw ResponseSerializationError.invalidImage(reason: error.description, response: response, data: data)
        }
    }
}
