/// Decodes and checks what any decode must give: a typed error, or pixels that match the size.
func checkDecoding(_ bytes: UnsafeRawBufferPointer, options: ImageDecodingOptions) {
    do {
        let image = try ImageDecoder(options: options).decode(bytes)
        precondition(image.width > 0 && image.height > 0, "an empty image was accepted")
        precondition(image.width * image.height * image.frames.count <= options.maximumPixelCount, "the pixel limit was passed")
        precondition(!options.decodesFirstFrameOnly || image.frames.count == 1, "more than the first frame")
        precondition(image.frames.allSatisfy { $0.pixels.count == image.width * image.height * 4 }, "pixels do not match the size")
    } catch {
        precondition(!error.description.isEmpty, "an error without words")
    }
}

/// The input as an animation-capable image (GIF, WebP): the first byte asks for the first frame only.
func checkAnimatedDecoding(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let start, count > 0 else { return 0 }
    let bytes = UnsafeRawBufferPointer(start: start, count: count)
    checkDecoding(bytes, options: ImageDecodingOptions(maximumPixelCount: 1 << 20, decodesFirstFrameOnly: bytes[0] & 1 == 1))
    return 0
}
