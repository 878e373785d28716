#if canImport(CImageCodecs)
#if canImport(Courier)
import Courier
#endif
import CImageCodecs

/// PNG through libpng (Sources/CImageCodecs/png_decoder.c).
enum PNGCodec {
    static func decode(_ buffer: UnsafeRawBufferPointer, options: ImageDecodingOptions) throws(ImageDecodingError) -> DecodedPixels {
        guard let bytes = buffer.baseAddress?.assumingMemoryBound(to: UInt8.self) else {
            throw ImageDecodingError(format: .png, reason: .truncated)
        }
        var info = ci_image_info()
        try LibraryStatus.check(ci_png_read_info(bytes, buffer.count, &info), info, format: .png)
        let size = ImageSize(width: Int(info.width), height: Int(info.height))
        try options.check(size, format: .png)
        let (status, pixels) = LibraryStatus.pixels(of: size) { pixels, count in
            ci_png_decode_rgba(bytes, buffer.count, pixels, count, &info)
        }
        try LibraryStatus.check(status, info, format: .png)
        return DecodedPixels(size: size, pixels: pixels)
    }
}
#endif
