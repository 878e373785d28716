/// libFuzzer entry point: the input as a GIF through CourierImage's decoder and giflib (frames composed with their
/// disposal methods); see `checkAnimatedDecoding`.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    checkAnimatedDecoding(start, count)
}
