/// Resizes an image to a target size, as AlamofireImage's `af.imageScaled` family and Nuke's `Resize` do.
///
/// Downscaling averages every source pixel a target pixel covers (area averaging, with fractional coverage at the
/// edges), in premultiplied alpha so that transparent pixels do not darken their neighbours: the quality a
/// thumbnail needs. Upscaling interpolates bilinearly.
public struct ResizeProcessor: ImageProcessor, Hashable {
    /// How the image is fitted into the target size.
    public enum ContentMode: String, Sendable, Hashable {
        /// Stretched to exactly the target size (the aspect ratio may change).
        case fill
        /// Scaled, keeping its aspect ratio, to fit inside the target size: one side equals the target's, the
        /// other is shorter.
        case aspectFit
        /// Scaled, keeping its aspect ratio, to cover the target size, then cropped around its centre to exactly
        /// the target size.
        case aspectFill
    }

    /// The size to fit the image to (each side at least 1).
    public var size: ImageSize
    /// How the image is fitted. Default ``ContentMode/aspectFill``.
    public var contentMode: ContentMode
    /// Whether an image smaller than the target is scaled up. Default `false`: it is kept as it is (cropped to the
    /// target's aspect ratio for ``ContentMode/aspectFill``).
    public var allowsUpscaling: Bool

    /// Resizes to `size` by `contentMode`.
    public init(size: ImageSize, contentMode: ContentMode = .aspectFill, allowsUpscaling: Bool = false) {
        self.size = ImageSize(width: max(size.width, 1), height: max(size.height, 1))
        self.contentMode = contentMode
        self.allowsUpscaling = allowsUpscaling
    }

    /// `resize(WxH,mode[,upscale])`.
    public var identifier: String { "resize(\(size),\(contentMode.rawValue)\(allowsUpscaling ? ",upscale" : ""))" }

    public func process(_ image: Image) -> Image {
        let widthScale = Double(size.width) / Double(image.width), heightScale = Double(size.height) / Double(image.height)
        var scaled: ImageSize
        switch contentMode {
        case .fill:
            scaled = size
            if !allowsUpscaling { scaled = ImageSize(width: min(size.width, image.width), height: min(size.height, image.height)) }
        case .aspectFit, .aspectFill:
            var scale = contentMode == .aspectFit ? min(widthScale, heightScale) : max(widthScale, heightScale)
            if !allowsUpscaling { scale = min(scale, 1) }
            scaled = ImageSize(width: max(1, Int((Double(image.width) * scale).rounded())),
                               height: max(1, Int((Double(image.height) * scale).rounded())))
        }
        var result = scaled == image.size ? image : image.mappingFrames(to: scaled) { pixels in
            PixelResampler.resample(pixels, from: image.size, to: scaled)
        }
        if contentMode == .aspectFill {
            // The largest rectangle of the target's aspect ratio inside the scaled image (the target's size when the
            // image could be scaled to cover it), around the centre.
            let fit = min(Double(result.width) / Double(size.width), Double(result.height) / Double(size.height), 1)
            let width = min(result.width, max(1, Int((Double(size.width) * fit).rounded())))
            let height = min(result.height, max(1, Int((Double(size.height) * fit).rounded())))
            result = CropProcessor(x: (result.width - width) / 2, y: (result.height - height) / 2,
                                   size: ImageSize(width: width, height: height)).process(result)
        }
        return result
    }
}
