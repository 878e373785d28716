#if canImport(Courier)
import Courier
#endif

/// How ``ImageDecoder`` decodes.
public struct ImageDecodingOptions: Sendable, Hashable {
    /// The default limit on an image's pixels: 64 megapixels (64 × 2²⁰ = 67,108,864 pixels, 256 MiB of RGBA).
    public static let defaultMaximumPixelCount = 64 << 20

    /// The most pixels (width × height, as stored) an image may have. The header is checked before any pixel
    /// buffer is allocated; a larger image is ``ImageDecodingError/Reason/tooManyPixels(width:height:limit:)``.
    /// An animation's frames count together (each frame is a whole canvas): one whose next frame would pass the
    /// limit is ``ImageDecodingError/Reason/tooManyFrames(decoded:width:height:limit:)``.
    /// Default ``defaultMaximumPixelCount``.
    public var maximumPixelCount: Int

    /// A size the caller wants at least (a thumbnail's): a JPEG is then decoded at the smallest of its DCT scales
    /// (1/2, 1/4, 1/8) that still covers this size in both dimensions, which costs a fraction of a full decode.
    /// Other formats decode at full size. For an exact size, resize the result. Default `nil` (full size).
    public var minimumSize: ImageSize?

    /// Whether a JPEG's EXIF orientation is applied to the pixels (as browsers and Pillow's `exif_transpose` do).
    /// Default `true`.
    public var appliesOrientation: Bool

    /// Whether only an animation's first frame is decoded (a still preview of a GIF or an animated WebP).
    /// Default `false`: every frame.
    public var decodesFirstFrameOnly: Bool

    /// Options with these values.
    public init(
        maximumPixelCount: Int = Self.defaultMaximumPixelCount,
        minimumSize: ImageSize? = nil,
        appliesOrientation: Bool = true,
        decodesFirstFrameOnly: Bool = false
    ) {
        self.maximumPixelCount = maximumPixelCount
        self.minimumSize = minimumSize
        self.appliesOrientation = appliesOrientation
        self.decodesFirstFrameOnly = decodesFirstFrameOnly
    }

    /// Checks `size` (as stored) against ``maximumPixelCount`` before anything is allocated.
    func check(_ size: ImageSize, format: ImageFormat) throws(ImageDecodingError) {
        let (pixels, overflow) = size.width.multipliedReportingOverflow(by: size.height)
        guard size.width > 0, size.height > 0 else {
            throw ImageDecodingError(format: format, reason: .corrupt("the header gives a size of \(size)"))
        }
        guard !overflow, pixels <= maximumPixelCount else {
            throw ImageDecodingError(format: format, reason: .tooManyPixels(width: size.width, height: size.height, limit: maximumPixelCount))
        }
    }
}
