/// libFuzzer entry point: parses the input as a Content-Type header value and checks invariants.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let start else { return 0 }
    let text = String(decoding: UnsafeBufferPointer(start: start, count: count), as: UTF8.self)
    guard let media = MediaType(parsing: text) else { return 0 }
    precondition(!media.type.isEmpty && !media.subtype.isEmpty, "empty type or subtype")
    precondition(media.mimeType == media.mimeType.lowercased(), "MIME type not lowercased")
    precondition(media.parameters.keys.allSatisfy { $0 == $0.lowercased() && !$0.isEmpty }, "bad parameter name")
    // Re-parsing the normalised type/subtype must give the same MIME type.
    precondition(MediaType(parsing: media.mimeType)?.mimeType == media.mimeType, "not idempotent")
    return 0
}
