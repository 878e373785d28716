/// A change to an image's pixels (resizing, cropping), applied after decoding. Its ``identifier`` tells cached
/// results apart: two processors with the same identifier must give the same pixels.
public protocol ImageProcessor: Sendable {
    /// A stable text naming this processor and its parameters, such as `resize(200x100,aspectFill)`.
    var identifier: String { get }

    /// `image` changed; every frame of an animation alike.
    func process(_ image: Image) -> Image
}

extension Image {
    /// This image with `transform` applied to each frame's pixels, which it turns into pixels of `size`.
    func mappingFrames(to size: ImageSize, _ transform: ([UInt8]) -> [UInt8]) -> Image {
        Image(checkedWidth: size.width, height: size.height, format: format,
              frames: frames.map { Image.Frame(pixels: transform($0.pixels), delay: $0.delay) })
    }
}
