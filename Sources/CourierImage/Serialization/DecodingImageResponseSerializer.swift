import Courier
import Foundation
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// AFNetworking 2.0's `AFImageResponseSerializer` with `automaticallyInflatesResponseImage`: validates the response
/// as `ImageResponseSerializer` does, then decodes the pixels as the response is serialized — in the task's own
/// task, never on the completion queue — and returns a ``DecodedResponseImage``. For sessions and operations alike
/// (set it as the manager's or the operation's `responseSerializer`).
///
/// With ``automaticallyInflatesResponseImage`` off it returns what `ImageResponseSerializer` does (a
/// `ReceivedImage`: the bytes and their header, decoded later with ``ImageDecoder``).
///
/// Thread safety: its settings are behind a `Mutex`, as its superclass's are (`@unchecked Sendable` is inherited
/// from `HTTPResponseSerializer`'s open class hierarchy).
open class DecodingImageResponseSerializer: ImageResponseSerializer, @unchecked Sendable {
    private struct Settings {
        var inflates = true
        var decoder = ImageDecoder()
    }

    private let settings = Mutex(Settings())

    /// A serializer that decodes, with `ImageDecoder()`'s limits.
    public required init() {
        super.init()
    }

    /// Whether the pixels are decoded as the response is serialized. Default `true` (AFNetworking's default on iOS).
    public var automaticallyInflatesResponseImage: Bool {
        get { settings.withLock { $0.inflates } }
        set { settings.withLock { $0.inflates = newValue } }
    }

    /// How the pixels are decoded (pixel limit, orientation, first frame only). Default `ImageDecoder()`.
    public var decoder: ImageDecoder {
        get { settings.withLock { $0.decoder } }
        set { settings.withLock { $0.decoder = newValue } }
    }

    open override func copy(with zone: NSZone? = nil) -> Any {
        let copy = super.copy(with: zone)
        (copy as? DecodingImageResponseSerializer)?.settings.withLock { $0 = settings.withLock { $0 } }
        return copy
    }

    /// Validates, then decodes.
    /// - Throws: the validation errors, `ResponseSerializationError.invalidImage` for data whose header does not
    ///   read, and ``ImageDecodingError`` for an image that does not decode.
    open override func responseObject(for response: URLResponse?, data: Data?) throws -> Any? {
        guard let received = try super.responseObject(for: response, data: data) as? ReceivedImage else { return nil }
        let (inflates, decoder) = settings.withLock { ($0.inflates, $0.decoder) }
        guard inflates else { return received }
        return DecodedResponseImage(image: try decoder.decode(received.data), scale: received.scale, data: received.data)
    }
}

/// What ``DecodingImageResponseSerializer`` returns: the decoded image, the scale it is meant for, and the bytes.
public struct DecodedResponseImage: Sendable, Hashable {
    /// The pixels.
    public let image: Image
    /// The serializer's `imageScale` (points = pixels / scale). Default 1.
    public let scale: Double
    /// The file as received.
    public let data: Data
}
