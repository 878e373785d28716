/// libFuzzer entry point: the input is a `Content-Disposition` value. Checks that the name `courier download` would
/// create stays in the current directory: one path component, not `.` or `..`, not hidden, no control characters,
/// at most 255 bytes.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let start else { return 0 }
    let header = String(decoding: UnsafeBufferPointer(start: start, count: count), as: UTF8.self)
    guard let name = ContentDispositionName.filename(in: header) else { return 0 }
    precondition(!name.isEmpty && name != "." && name != "..", "an empty or dot name")
    precondition(!name.contains("/") && !name.contains("\\"), "a path separator")
    precondition(!name.hasPrefix("."), "a hidden name")
    precondition(!name.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }, "a control character")
    precondition(name.utf8.count <= 255, "longer than 255 bytes")
    precondition(SafeFileName.sanitized(name) == name, "not stable when sanitised again")
    return 0
}
