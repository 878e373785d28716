#if canImport(CImageCodecs)
#if canImport(Courier)
import Courier
#endif
import CImageCodecs

/// Reads an animation's frames through a `ci_animation` (GIF, animated WebP), within the pixel limit for all of
/// them together.
enum AnimationReader {
    static func read(
        format: ImageFormat, size: ImageSize, options: ImageDecodingOptions,
        open: (inout ci_image_info, inout ci_status) -> OpaquePointer?
    ) throws(ImageDecodingError) -> DecodedPixels {
        var info = ci_image_info()
        var status = CI_STATUS_OK
        guard let animation = open(&info, &status) else {
            try LibraryStatus.check(status == CI_STATUS_OK ? CI_STATUS_CORRUPT : status, info, format: format)
            throw ImageDecodingError(format: format, reason: .corrupt(LibraryStatus.message(of: info)))
        }
        defer { ci_animation_close(animation) }
        let canvas = ImageSize(width: Int(info.width), height: Int(info.height))
        guard canvas == size else {
            throw ImageDecodingError(format: format, reason: .corrupt("the canvas is \(canvas), the header said \(size)"))
        }
        let framePixels = size.width * size.height
        var frames: [Image.Frame] = []
        while !(options.decodesFirstFrameOnly && frames.count == 1) {
            guard (frames.count + 1).multipliedReportingOverflow(by: framePixels).partialValue <= options.maximumPixelCount,
                  frames.count < Int.max / framePixels else {
                throw ImageDecodingError(
                    format: format,
                    reason: .tooManyFrames(decoded: frames.count, width: size.width, height: size.height, limit: options.maximumPixelCount)
                )
            }
            var duration: UInt32 = 0
            let (status, pixels) = LibraryStatus.pixels(of: size) { pixels, count in
                ci_animation_next(animation, pixels, count, &duration, &info)
            }
            if status == CI_STATUS_END { break }
            try LibraryStatus.check(status, info, format: format)
            frames.append(Image.Frame(pixels: pixels, delay: .milliseconds(duration)))
        }
        guard !frames.isEmpty else {
            throw ImageDecodingError(format: format, reason: .corrupt("no frame"))
        }
        return DecodedPixels(size: size, frames: frames)
    }
}
#endif
