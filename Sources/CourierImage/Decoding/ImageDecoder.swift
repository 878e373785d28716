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
        let decoded = try PlatformCodecs.decode(buffer, format: format, options: options)
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
