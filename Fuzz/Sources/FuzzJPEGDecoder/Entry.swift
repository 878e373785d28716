/// libFuzzer entry point: the input as a JPEG through CourierImage's decoder (libjpeg-turbo behind the C boundary
/// of Sources/CImageCodecs, the EXIF reader, the orientation). The first byte picks a thumbnail size, so the DCT
/// scales are fuzzed too; the pixel limit is small so that a run stays fast.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let start, count > 0 else { return 0 }
    let bytes = UnsafeRawBufferPointer(start: start, count: count)
    let side = Int(bytes[0] % 64) * 8
    let options = ImageDecodingOptions(maximumPixelCount: 1 << 20, minimumSize: side == 0 ? nil : ImageSize(width: side, height: side))
    checkDecoding(bytes, options: options)
    return 0
}

/// Decodes and checks what any decode must give: a typed error, or pixels that match the size.
func checkDecoding(_ bytes: UnsafeRawBufferPointer, options: ImageDecodingOptions) {
    do {
        let image = try ImageDecoder(options: options).decode(bytes)
        precondition(image.width > 0 && image.height > 0, "an empty image was accepted")
        precondition(image.width * image.height <= options.maximumPixelCount, "the pixel limit was passed")
        precondition(image.frames.allSatisfy { $0.pixels.count == image.width * image.height * 4 }, "pixels do not match the size")
    } catch {
        precondition(!error.description.isEmpty, "an error without words")
    }
}
