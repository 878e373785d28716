import Foundation

/// What ``ImageResponseSerializer`` returns: the image bytes with the format and pixel size read
/// from their header. Pixels are not decoded (there is no UIImage/NSImage on Linux); hand
/// ``data`` to an image library to draw it.
public struct ReceivedImage: Sendable, Equatable {
    /// The image file as received.
    public let data: Data
    /// The format and pixel size.
    public let header: ImageHeader
    /// The scale the image is meant for (points = pixels / scale), from the serializer's
    /// `imageScale`.
    public let scale: Double

    /// Creates a value.
    public init(data: Data, header: ImageHeader, scale: Double) {
        self.data = data
        self.header = header
        self.scale = scale
    }

    /// The image format.
    public var format: ImageFormat { header.format }
    /// The width in pixels.
    public var pixelWidth: Int { header.pixelWidth }
    /// The height in pixels.
    public var pixelHeight: Int { header.pixelHeight }
}
