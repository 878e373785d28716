#if canImport(Courier)
import Courier
#endif

/// The decoders this platform has: the C libraries on Linux, ImageIO on Apple platforms.
enum PlatformCodecs {
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
