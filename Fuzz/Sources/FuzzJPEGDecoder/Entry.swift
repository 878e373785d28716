/// libFuzzer entry point: the input as a JPEG through CourierImage's decoder (libjpeg-turbo behind the C boundary
/// of Sources/CImageCodecs, the EXIF reader, the orientation). The first byte picks a thumbnail size, so the DCT
/// scales are fuzzed too; the pixel limit is small so that a run stays fast. The bytes also go through the scan
/// tracker a downloader uses for previews, in chunks the second byte sizes, and a preview of each prefix where a
/// scan completes is decoded (it may be nil, never a crash).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let start, count > 0 else { return 0 }
    let bytes = UnsafeRawBufferPointer(start: start, count: count)
    let side = Int(bytes[0] % 64) * 8
    let options = ImageDecodingOptions(maximumPixelCount: 1 << 20, minimumSize: side == 0 ? nil : ImageSize(width: side, height: side))
    checkDecoding(bytes, options: options)
    if count > 1 { checkPreviews(bytes, chunk: Int(bytes[1]) * 16 + 1, options: options) }
    return 0
}

/// Feeds `bytes` to a `JPEGScanTracker` `chunk` bytes at a time, as a download would, and decodes a preview where
/// a scan completes.
func checkPreviews(_ bytes: UnsafeRawBufferPointer, chunk: Int, options: ImageDecodingOptions) {
    var tracker = JPEGScanTracker()
    var end = 0
    while end < bytes.count {
        end = min(end + chunk, bytes.count)
        let prefix = UnsafeRawBufferPointer(rebasing: bytes[..<end])
        let before = tracker.completedScans
        if tracker.advance(over: prefix) {
            precondition(tracker.completedScans > before, "the scan count went back")
            if let preview = ImageDecoder(options: options).decodePreview(prefix) {
                precondition(preview.frames.allSatisfy { $0.pixels.count == preview.width * preview.height * 4 }, "preview pixels do not match its size")
            }
        }
    }
}
