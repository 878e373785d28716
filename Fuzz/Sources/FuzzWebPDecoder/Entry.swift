/// libFuzzer entry point: the input as a WebP (still or animated) through CourierImage's decoder and libwebp; see `checkAnimatedDecoding`.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    checkAnimatedDecoding(start, count)
}
