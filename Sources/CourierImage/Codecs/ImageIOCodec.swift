#if !canImport(CImageCodecs) && canImport(ImageIO)
#if canImport(Courier)
import Courier
#endif
import CoreGraphics
import ImageIO

/// Decoding through ImageIO on Apple platforms, to the same RGBA layout as the Linux decoders (the EXIF
/// orientation is applied by ``ImageDecoder``, as there). This project's CI runs on Linux only: this path is
/// compiled on Apple platforms but not tested; the scaled decode of ``ImageDecodingOptions/minimumSize`` is not
/// used here (a full decode).
enum ImageIOCodec {
    static func decode(_ buffer: UnsafeRawBufferPointer, format: ImageFormat, options: ImageDecodingOptions) throws(ImageDecodingError) -> DecodedPixels {
        guard let bytes = buffer.baseAddress?.assumingMemoryBound(to: UInt8.self),
              let data = CFDataCreate(nil, bytes, buffer.count),
              let source = CGImageSourceCreateWithData(data, nil) else {
            throw ImageDecodingError(format: format, reason: .truncated)
        }
        guard let properties = CGImageSourceCopyPropertiesAtIndex(source, 0, nil) as? [CFString: Any],
              let width = properties[kCGImagePropertyPixelWidth] as? Int,
              let height = properties[kCGImagePropertyPixelHeight] as? Int else {
            throw ImageDecodingError(format: format, reason: .corrupt("ImageIO found no image size"))
        }
        try options.check(ImageSize(width: width, height: height), format: format)
        guard let image = CGImageSourceCreateImageAtIndex(source, 0, nil) else {
            throw ImageDecodingError(format: format, reason: .corrupt("ImageIO could not decode the image"))
        }
        let size = ImageSize(width: image.width, height: image.height)
        try options.check(size, format: format)
        guard let space = CGColorSpace(name: CGColorSpace.sRGB) else {
            throw ImageDecodingError(format: format, reason: .unsupported("a colour space without sRGB"))
        }
        var pixels = [UInt8](repeating: 0, count: size.width * size.height * Image.bytesPerPixel)
        let drawn = pixels.withUnsafeMutableBytes { target -> Bool in
            // CoreGraphics draws 8-bit RGBA only premultiplied; the alpha is divided out below.
            guard let context = CGContext(
                data: target.baseAddress, width: size.width, height: size.height, bitsPerComponent: 8,
                bytesPerRow: size.width * Image.bytesPerPixel, space: space,
                bitmapInfo: CGImageAlphaInfo.premultipliedLast.rawValue
            ) else { return false }
            context.draw(image, in: CGRect(x: 0, y: 0, width: size.width, height: size.height))
            return true
        }
        guard drawn else { throw ImageDecodingError(format: format, reason: .outOfMemory) }
        for offset in stride(from: 0, to: pixels.count, by: Image.bytesPerPixel) {
            let alpha = Int(pixels[offset + 3])
            guard alpha > 0, alpha < 255 else { continue }
            for channel in 0..<3 {
                pixels[offset + channel] = UInt8(min(255, (Int(pixels[offset + channel]) * 255 + alpha / 2) / alpha))
            }
        }
        return DecodedPixels(size: size, pixels: pixels)
    }
}
#endif
