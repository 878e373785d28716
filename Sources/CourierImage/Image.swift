#if canImport(Courier)
import Courier
#endif

/// A decoded image: its size, where it came from, and its pixels.
///
/// Pixels are 8-bit RGBA: four bytes a pixel (red, green, blue, alpha), alpha straight (not premultiplied), rows
/// top to bottom with no padding, so the pixel at (`x`, `y`) starts at byte `(y * width + x) * 4`. An opaque image
/// has alpha 255 everywhere. The orientation a JPEG's EXIF data asks for is already applied (unless
/// ``ImageDecodingOptions/appliesOrientation`` is off), so `width` and `height` are the size as shown.
public struct Image: Sendable, Hashable {
    /// The number of bytes of one pixel in ``Frame/pixels``: 4 (RGBA).
    public static let bytesPerPixel = 4

    /// Width in pixels, as shown (after the EXIF orientation and any scaled decoding).
    public let width: Int
    /// Height in pixels, as shown.
    public let height: Int
    /// The format the bytes were in (read from the bytes, never from a `Content-Type`).
    public let format: ImageFormat
    /// The frames: one for a still image; every frame of an animation, in order. Never empty.
    public let frames: [Frame]

    /// One picture of the image, with how long an animation shows it.
    public struct Frame: Sendable, Hashable {
        /// `width * height * 4` bytes of RGBA (see ``Image``).
        public let pixels: [UInt8]
        /// How long an animation shows this frame; zero for a still image.
        public let delay: Duration

        /// A frame of `pixels` shown for `delay`.
        public init(pixels: [UInt8], delay: Duration = .zero) {
            self.pixels = pixels
            self.delay = delay
        }
    }

    /// An image of the given frames. Each frame's pixels must be `width * height * 4` bytes.
    /// - Throws: ``ImageDecodingError`` (`.corrupt`) when a frame's size is wrong or there is no frame.
    public init(width: Int, height: Int, format: ImageFormat, frames: [Frame]) throws(ImageDecodingError) {
        let (count, overflow) = width.multipliedReportingOverflow(by: height)
        guard width > 0, height > 0, !overflow, !frames.isEmpty,
              frames.allSatisfy({ $0.pixels.count == count * Self.bytesPerPixel }) else {
            throw ImageDecodingError(format: format, reason: .corrupt("frames do not hold \(width)x\(height) RGBA pixels"))
        }
        self.width = width
        self.height = height
        self.format = format
        self.frames = frames
    }

    /// Builds an image whose sizes the caller has already checked.
    init(checkedWidth width: Int, height: Int, format: ImageFormat, frames: [Frame]) {
        self.width = width
        self.height = height
        self.format = format
        self.frames = frames
    }

    /// The first frame's pixels (for a still image, the image).
    public var pixels: [UInt8] { frames[0].pixels }

    /// The size in pixels.
    public var size: ImageSize { ImageSize(width: width, height: height) }

    /// The bytes this image's pixels take (every frame): what an image cache counts as its cost.
    public var pixelByteCount: Int { frames.count * width * height * Self.bytesPerPixel }

    /// The first frame's pixel at (`x`, `y`), or `nil` outside the image.
    public func pixel(x: Int, y: Int) -> RGBA? {
        guard (0..<width).contains(x), (0..<height).contains(y) else { return nil }
        let offset = (y * width + x) * Self.bytesPerPixel
        let pixels = frames[0].pixels
        return RGBA(red: pixels[offset], green: pixels[offset + 1], blue: pixels[offset + 2], alpha: pixels[offset + 3])
    }
}

/// One pixel: 8-bit red, green, blue and straight alpha.
public struct RGBA: Sendable, Hashable, CustomStringConvertible {
    /// Red, 0–255.
    public var red: UInt8
    /// Green, 0–255.
    public var green: UInt8
    /// Blue, 0–255.
    public var blue: UInt8
    /// Alpha, 0 (transparent) – 255 (opaque).
    public var alpha: UInt8

    /// A pixel of these components.
    public init(red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8 = 255) {
        self.red = red
        self.green = green
        self.blue = blue
        self.alpha = alpha
    }

    /// `rgba(r, g, b, a)`.
    public var description: String { "rgba(\(red), \(green), \(blue), \(alpha))" }
}

/// A width and a height in pixels.
public struct ImageSize: Sendable, Hashable, CustomStringConvertible {
    /// Width in pixels.
    public var width: Int
    /// Height in pixels.
    public var height: Int

    /// A size of `width` by `height` pixels.
    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    /// `WIDTHxHEIGHT`.
    public var description: String { "\(width)x\(height)" }
}
