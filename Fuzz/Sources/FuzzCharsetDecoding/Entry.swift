import Foundation

/// libFuzzer entry point: the first line of the input is a Content-Type value whose charset (or
/// a raw charset name) is used to decode the rest of the input as text.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let start else { return 0 }
    let bytes = Array(UnsafeBufferPointer(start: start, count: count))
    let split = bytes.firstIndex(of: 0x0A) ?? 0
    let header = String(decoding: bytes[..<split], as: UTF8.self)
    let body = Data(bytes[min(split + 1, bytes.count)...])
    let charset = MediaType(parsing: header)?.charset ?? header
    _ = CharsetDecoding.encoding(forCharset: charset)
    if let text = CharsetDecoding.decode(body, charset: charset) {
        // Whatever decoded as UTF-8 must be the same bytes (minus a BOM) when re-encoded.
        if CharsetDecoding.encoding(forCharset: charset) == .utf8, !body.starts(with: [0xFE, 0xFF]), !body.starts(with: [0xFF, 0xFE]) {
            let expected = body.starts(with: [0xEF, 0xBB, 0xBF]) ? body.dropFirst(3) : body[...]
            precondition(Data(text.utf8) == Data(expected), "UTF-8 round trip failed")
        }
    }
    return 0
}
