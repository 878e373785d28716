/// libFuzzer entry point: reads the input as an image header and checks invariants.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let start else { return 0 }
    let bytes = Array(UnsafeBufferPointer(start: start, count: count))
    guard let header = try? ImageHeader.parse(bytes) else { return 0 }
    precondition(header.pixelWidth > 0 && header.pixelHeight > 0, "non-positive size accepted")
    return 0
}
