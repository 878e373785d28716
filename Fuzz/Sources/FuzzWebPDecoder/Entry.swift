/// libFuzzer entry point: the input as a WebP (still or animated) through CourierImage's decoder and libwebp; the
/// first byte asks for the first frame only. A result is a typed error or frames matching the size, within the
/// pixel limit (small, so that a run stays fast).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let start, count > 0 else { return 0 }
    let bytes = UnsafeRawBufferPointer(start: start, count: count)
    checkDecoding(bytes, options: ImageDecodingOptions(maximumPixelCount: 1 << 20, decodesFirstFrameOnly: bytes[0] & 1 == 1))
    return 0
}
