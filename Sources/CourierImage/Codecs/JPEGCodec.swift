#if canImport(CImageCodecs)
#if canImport(Courier)
import Courier
#endif
import CImageCodecs

/// JPEG through libjpeg-turbo (Sources/CImageCodecs/jpeg_decoder.c).
enum JPEGCodec {
    /// Decodes the JPEG in `buffer`. With `allowsTruncation`, data that ends early decodes to what it holds (for a
    /// progressive image, its scans so far: a preview) instead of failing.
    static func decode(
        _ buffer: UnsafeRawBufferPointer, options: ImageDecodingOptions, allowsTruncation: Bool = false
    ) throws(ImageDecodingError) -> DecodedPixels {
        guard let bytes = buffer.baseAddress?.assumingMemoryBound(to: UInt8.self) else {
            throw ImageDecodingError(format: .jpeg, reason: .truncated)
        }
        var info = ci_image_info()
        try LibraryStatus.check(ci_jpeg_read_info(bytes, buffer.count, 1, &info), info, format: .jpeg)
        let stored = ImageSize(width: Int(info.stored_width), height: Int(info.stored_height))
        try options.check(stored, format: .jpeg)
        let denominator = scaleDenominator(for: stored, covering: options.minimumSize)
        if denominator != 1 {
            try LibraryStatus.check(ci_jpeg_read_info(bytes, buffer.count, denominator, &info), info, format: .jpeg)
        }
        let size = ImageSize(width: Int(info.width), height: Int(info.height))
        let (status, pixels) = LibraryStatus.pixels(of: size) { pixels, count in
            ci_jpeg_decode_rgba(bytes, buffer.count, denominator, allowsTruncation ? 1 : 0, pixels, count, &info)
        }
        try LibraryStatus.check(status, info, format: .jpeg)
        return DecodedPixels(size: size, pixels: pixels)
    }

    /// The largest of libjpeg's DCT scales (1/8, 1/4, 1/2) whose result still covers `minimum` in both dimensions
    /// (libjpeg rounds a scaled side up); 1 when there is no minimum or none does.
    static func scaleDenominator(for stored: ImageSize, covering minimum: ImageSize?) -> UInt32 {
        guard let minimum else { return 1 }
        for denominator in [8, 4, 2] {
            let width = (stored.width + denominator - 1) / denominator
            let height = (stored.height + denominator - 1) / denominator
            if width >= minimum.width, height >= minimum.height { return UInt32(denominator) }
        }
        return 1
    }
}
#endif
