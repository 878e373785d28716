#if canImport(Courier)
import Courier
#endif

#if canImport(CImageCodecs)
import CImageCodecs
#endif

/// The decoders this platform has: the C libraries on Linux, ImageIO on Apple platforms.
enum PlatformCodecs {
    /// Why this build cannot decode, or nil when it can.
    static let unavailableReason: String? = {
        #if canImport(CImageCodecs)
        guard ci_system_codecs_available() == 0 else { return nil }
        return "CourierImage was built without the system's image libraries "
            + "(apt-get install libjpeg62-turbo-dev libpng-dev libwebp-dev libgif-dev, then build again)"
        #elseif canImport(ImageIO)
        return nil
        #else
        return "decoding images is not available on this platform"
        #endif
    }()

    static func decode(_ buffer: UnsafeRawBufferPointer, format: ImageFormat, options: ImageDecodingOptions) throws(ImageDecodingError) -> DecodedPixels {
        #if canImport(CImageCodecs)
        switch format {
        case .jpeg: return try JPEGCodec.decode(buffer, options: options)
        case .png: return try PNGCodec.decode(buffer, options: options)
        case .webp: return try WebPCodec.decode(buffer, options: options)
        case .gif: return try GIFCodec.decode(buffer, options: options)
        case .bmp, .tiff, .ico: throw ImageDecodingError(format: format, reason: .unsupported("decoding \(format.name)"))
        }
        #elseif canImport(ImageIO)
        return try ImageIOCodec.decode(buffer, format: format, options: options)
        #else
        throw ImageDecodingError(format: format, reason: .unsupported("decoding images on this platform"))
        #endif
    }
}
