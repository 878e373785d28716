#if canImport(CImageCodecs)
#if canImport(Courier)
import Courier
#endif
import CImageCodecs

/// GIF through giflib (Sources/CImageCodecs/gif_decoder.c): every frame composed on the logical screen, a still
/// GIF being an animation of one frame.
enum GIFCodec {
    static func decode(_ buffer: UnsafeRawBufferPointer, options: ImageDecodingOptions) throws(ImageDecodingError) -> DecodedPixels {
        guard let bytes = buffer.baseAddress?.assumingMemoryBound(to: UInt8.self) else {
            throw ImageDecodingError(format: .gif, reason: .truncated)
        }
        var info = ci_image_info()
        try LibraryStatus.check(ci_gif_read_info(bytes, buffer.count, &info), info, format: .gif)
        let size = ImageSize(width: Int(info.width), height: Int(info.height))
        try options.check(size, format: .gif)
        // A frame's own rectangle may be declared larger than the screen; it is read (and clipped) only within the
        // same limit.
        let framePixels = UInt64(max(options.maximumPixelCount, 0))
        return try AnimationReader.read(format: .gif, size: size, options: options) { info, status in
            ci_animation_open_gif(bytes, buffer.count, framePixels, &info, &status)
        }
    }
}
#endif
