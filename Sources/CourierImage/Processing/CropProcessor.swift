/// Cuts out a rectangle. The part of it outside the image is left out, so the result is never larger than the
/// image, and a rectangle that misses the image entirely leaves the image as it is.
public struct CropProcessor: ImageProcessor, Hashable {
    /// The rectangle's left column.
    public var x: Int
    /// The rectangle's top row.
    public var y: Int
    /// The rectangle's size.
    public var size: ImageSize

    /// Crops to the rectangle at (`x`, `y`) of `size`.
    public init(x: Int, y: Int, size: ImageSize) {
        self.x = x
        self.y = y
        self.size = size
    }

    /// `crop(X,Y,WxH)`.
    public var identifier: String { "crop(\(x),\(y),\(size))" }

    public func process(_ image: Image) -> Image {
        let left = max(x, 0), top = max(y, 0)
        let right = min(x.addingReportingOverflow(size.width).partialValue, image.width)
        let bottom = min(y.addingReportingOverflow(size.height).partialValue, image.height)
        guard left < right, top < bottom, (left, top, right, bottom) != (0, 0, image.width, image.height) else { return image }
        let cropped = ImageSize(width: right - left, height: bottom - top)
        return image.mappingFrames(to: cropped) { pixels in
            var result = [UInt8]()
            result.reserveCapacity(cropped.width * cropped.height * Image.bytesPerPixel)
            for row in top..<bottom {
                let start = (row * image.width + left) * Image.bytesPerPixel
                result.append(contentsOf: pixels[start..<(start + cropped.width * Image.bytesPerPixel)])
            }
            return result
        }
    }
}
