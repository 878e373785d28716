#if canImport(CImageCodecs)
#if canImport(Courier)
import Courier
#endif
import CImageCodecs

/// WebP through libwebp (Sources/CImageCodecs/webp_decoder.c): a still image in one call, an animation a frame at a
/// time.
enum WebPCodec {
    static func decode(_ buffer: UnsafeRawBufferPointer, options: ImageDecodingOptions) throws(ImageDecodingError) -> DecodedPixels {
        guard let bytes = buffer.baseAddress?.assumingMemoryBound(to: UInt8.self) else {
            throw ImageDecodingError(format: .webp, reason: .truncated)
        }
        var info = ci_image_info()
        try LibraryStatus.check(ci_webp_read_info(bytes, buffer.count, &info), info, format: .webp)
        let size = ImageSize(width: Int(info.width), height: Int(info.height))
        try options.check(size, format: .webp)
        guard info.is_animated != 0 else {
            let (status, pixels) = LibraryStatus.pixels(of: size) { pixels, count in
                ci_webp_decode_rgba(bytes, buffer.count, pixels, count, &info)
            }
            try LibraryStatus.check(status, info, format: .webp)
            return DecodedPixels(size: size, pixels: pixels)
        }
        return try AnimationReader.read(format: .webp, size: size, options: options) { info, status in
            ci_animation_open_webp(bytes, buffer.count, &info, &status)
        }
    }
}
#endif
