/// libFuzzer entry point: the input as a PNG through CourierImage's decoder (libpng behind the C boundary of
/// Sources/CImageCodecs), with a small pixel limit so that a run stays fast.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let start else { return 0 }
    let bytes = UnsafeRawBufferPointer(start: start, count: count)
    do {
        let options = ImageDecodingOptions(maximumPixelCount: 1 << 20)
        let image = try ImageDecoder(options: options).decode(bytes)
        precondition(image.width > 0 && image.height > 0, "an empty image was accepted")
        precondition(image.width * image.height <= options.maximumPixelCount, "the pixel limit was passed")
        precondition(image.pixels.count == image.width * image.height * 4, "pixels do not match the size")
    } catch {
        precondition(!error.description.isEmpty, "an error without words")
    }
    return 0
}
