/// libFuzzer entry point: the input is header fields, one `name:value` per line (split at the first colon, so names
/// and values may hold anything else, CR and NUL included). Checks that the section the check accepts has token names,
/// values without control characters but tab, and fits the size limit.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let start else { return 0 }
    let text = String(decoding: UnsafeBufferPointer(start: start, count: count), as: UTF8.self)
    let fields: [(name: String, value: String)] = text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
        guard let colon = line.firstIndex(of: ":") else { return (String(line), "") }
        return (String(line[..<colon]), String(line[line.index(after: colon)...]))
    }
    do {
        try RequestHeaderCheck.check(fields)
    } catch {
        return 0
    }
    var total = 0
    for (name, value) in fields {
        precondition(!name.isEmpty && !name.utf8.contains { $0 <= 0x20 || $0 >= 0x7F || $0 == UInt8(ascii: ":") }, "a bad name passed")
        precondition(!value.utf8.contains { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }, "a control character passed")
        total += name.utf8.count + value.utf8.count + 4
    }
    precondition(total <= RequestHeaderCheck.maximumSectionBytes, "an over-long section passed")
    return 0
}
