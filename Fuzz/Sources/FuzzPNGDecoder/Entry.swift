/// libFuzzer entry point: the input as a PNG through CourierImage's decoder (libpng behind the C boundary of
/// Sources/CImageCodecs), with a small pixel limit so that a run stays fast.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let start else { return 0 }
    checkDecoding(UnsafeRawBufferPointer(start: start, count: count), options: ImageDecodingOptions(maximumPixelCount: 1 << 20))
    return 0
}
