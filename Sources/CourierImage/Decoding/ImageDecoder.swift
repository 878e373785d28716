#if canImport(Courier)
import Courier
#endif

/// Decodes JPEG, PNG, WebP and GIF bytes to an ``Image`` of RGBA pixels (every frame of an animation).
///
/// The format is read from the bytes (`ImageFormat.init(sniffing:)`). The header's size is checked against
/// ``ImageDecodingOptions/maximumPixelCount`` before any pixel buffer is allocated, and every failure is an
/// ``ImageDecodingError`` naming the format and the reason. On Linux the pixels come from the system's
/// libjpeg-turbo, libpng, libwebp and giflib (Debian: `apt-get install libjpeg62-turbo-dev libpng-dev libwebp-dev
/// libgif-dev`) through a small C target that keeps libjpeg's and libpng's `longjmp` error handling away from Swift;
/// on Apple platforms from ImageIO (which this project's CI cannot run: that path is untested, and decodes the
/// first frame only).
///
/// Decoding is synchronous and takes CPU time in proportion to the pixels: call it from a task or a thread of your
/// own, never from a SwiftNIO event loop.
public struct ImageDecoder: Sendable {
    /// How this decoder decodes. Default: `ImageDecodingOptions()`'s defaults.
    public var options: ImageDecodingOptions

    /// A decoder with `options`.
    public init(options: ImageDecodingOptions = ImageDecodingOptions()) {
        self.options = options
    }

    /// Whether this build decodes images: on Apple platforms always (ImageIO); on Linux when the system's image
    /// libraries' headers were installed when CourierImage was built (see ``unavailableReason``).
    public static var canDecode: Bool { PlatformCodecs.unavailableReason == nil }

    /// Why this build cannot decode (every decode then throws ``ImageDecodingError/Reason/unsupported(_:)`` with
    /// these words), or `nil` when it can.
    public static var unavailableReason: String? { PlatformCodecs.unavailableReason }

    /// Decodes `bytes` (a `Data`, an `[UInt8]`, a `ByteBuffer`'s readable bytes).
    /// - Throws: ``ImageDecodingError``.
    public func decode(_ bytes: some Collection<UInt8>) throws(ImageDecodingError) -> Image {
        let outcome = bytes.withContiguousStorageIfAvailable { buffer in
            Result { () throws(ImageDecodingError) -> Image in try decode(UnsafeRawBufferPointer(buffer)) }
        }
        if let outcome { return try outcome.get() }
        return try Array(bytes).withUnsafeBytes { buffer in
            Result { () throws(ImageDecodingError) -> Image in try decode(buffer) }
        }.get()
    }

    /// Decodes the bytes in `buffer`.
    /// - Throws: ``ImageDecodingError``.
    public func decode(_ buffer: UnsafeRawBufferPointer) throws(ImageDecodingError) -> Image {
        guard let format = ImageFormat(sniffing: buffer) else {
            // A format Courier's header reader knows but no decoder here does (BMP, TIFF, ICO) is named as such.
            if buffer.count >= 2, let other = try? ImageHeader.parse(Array(buffer.prefix(64 << 10))).format {
                throw ImageDecodingError(format: other, reason: .unsupported("decoding \(other.name)"))
            }
            throw ImageDecodingError(format: nil, reason: .unrecognizedFormat)
        }
        return shown(try PlatformCodecs.decode(buffer, format: format, options: options), format: format, from: buffer)
    }

    /// A preview of a progressive JPEG whose bytes are still arriving: the scans in `bytes` (the image's first
    /// bytes) decoded at the image's full size (or its ``ImageDecodingOptions/minimumSize`` scale), with its
    /// orientation applied, as a browser shows the image while it loads. Each further scan sharpens it; the last
    /// one gives the image itself.
    ///
    /// `nil` when there is nothing to show yet (the header has not all arrived), when the bytes are not a JPEG, and
    /// on Apple platforms (ImageIO's incremental decoding is not wired up). A failure is not reported here: the
    /// decode of the whole image reports it. ``ImageDownloader`` calls this after each scan of a progressive JPEG
    /// when a caller asks for previews.
    public func decodePreview(_ bytes: some Collection<UInt8>) -> Image? {
        #if canImport(CImageCodecs)
        let preview = bytes.withContiguousStorageIfAvailable { buffer in decodePreview(UnsafeRawBufferPointer(buffer)) }
        if let preview { return preview }
        return Array(bytes).withUnsafeBytes { buffer in decodePreview(buffer) }
        #else
        return nil
        #endif
    }

    #if canImport(CImageCodecs)
    private func decodePreview(_ buffer: UnsafeRawBufferPointer) -> Image? {
        guard ImageFormat(sniffing: buffer) == .jpeg else { return nil }
        var tracker = JPEGScanTracker()
        tracker.advance(over: buffer)
        let decodable = UnsafeRawBufferPointer(rebasing: buffer[..<tracker.decodableLength(of: buffer.count)])
        guard let decoded = try? JPEGCodec.decode(decodable, options: options, allowsTruncation: true) else { return nil }
        return shown(decoded, format: .jpeg, from: decodable)
    }
    #endif

    /// The decoded pixels as an ``Image``, turned by the JPEG's EXIF orientation when the options apply it.
    private func shown(_ decoded: DecodedPixels, format: ImageFormat, from buffer: UnsafeRawBufferPointer) -> Image {
        var image = Image(checkedWidth: decoded.size.width, height: decoded.size.height, format: format, frames: decoded.frames)
        if options.appliesOrientation, format == .jpeg, let orientation = EXIFOrientation(jpeg: buffer), orientation != .up {
            image = orientation.applied(to: image)
        }
        return image
    }
}

/// What a codec hands back: the pixels' size and its frames of `size.width * size.height * 4` bytes of RGBA.
struct DecodedPixels {
    var size: ImageSize
    var frames: [Image.Frame]

    init(size: ImageSize, pixels: [UInt8]) {
        self.size = size
        self.frames = [Image.Frame(pixels: pixels)]
    }

    init(size: ImageSize, frames: [Image.Frame]) {
        self.size = size
        self.frames = frames
    }
}
