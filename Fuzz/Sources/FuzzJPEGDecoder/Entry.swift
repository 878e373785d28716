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
