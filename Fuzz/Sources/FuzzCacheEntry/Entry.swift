import Crypto
import Foundation

/// libFuzzer entry point: the HTTP cache's entry files as `DiskCacheStore` reads them back (`CachedEntryFile`), and
/// the `Cache-Control` values of what they hold. The first byte picks how the rest is used:
///
/// 0. as a whole file, read as it is (the checksum must be right for anything to be read);
/// 1. as a file without its checksum, which is appended here, so that the framing (magic, lengths) is fuzzed past
///    the SHA-256;
/// 2. as a head (JSON) and a body separated by the first NUL byte, framed and sealed here, so that the head's JSON
///    is fuzzed;
/// 3. as `Cache-Control` values, one per line (`CacheControl`).
///
/// Checks that a file is read only when its checksum matches, that an entry read re-encodes to a file that reads
/// back to the same entry, that every cut, flipped or lengthened copy of that file is refused, that a sealed file
/// with a readable head keeps its body, and that `Cache-Control` directives have lower-cased, trimmed names and
/// delta-seconds in 0...2³¹.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    _ = magicInitialized
    guard let start, count > 0 else { return 0 }
    let bytes = UnsafeBufferPointer(start: start, count: count)
    let rest = Data(bytes.dropFirst())
    switch bytes[0] % 4 {
    case 0:
        guard let entry = try? CachedEntryFile.decode(rest) else { return 0 }
        precondition(rest.count >= SHA256.byteCount && Data(SHA256.hash(data: rest.dropLast(SHA256.byteCount))) == rest.suffix(SHA256.byteCount),
                     "a file read without a matching checksum")
        checkEntry(entry, mutation: rest.count)
    case 1:
        var sealed = rest
        sealed.append(contentsOf: SHA256.hash(data: rest))
        guard let entry = try? CachedEntryFile.decode(sealed) else { return 0 }
        checkEntry(entry, mutation: rest.count)
    case 2:
        let split = rest.firstIndex(of: 0) ?? rest.endIndex
        let head = rest[..<split]
        let body = split < rest.endIndex ? rest[(split + 1)...] : Data()
        var file = CachedEntryFile.magic
        append(UInt32(head.count), to: &file)
        file.append(head)
        append(UInt64(body.count), to: &file)
        file.append(body)
        file.append(contentsOf: SHA256.hash(data: file))
        do {
            let entry = try CachedEntryFile.decode(file)
            precondition(entry.body == body, "a body changed in reading")
            checkEntry(entry, mutation: Int(bytes.count))
        } catch let error as CachedEntryFile.Unreadable {
            // The framing is right, so only the head can be at fault.
            precondition(error.description == "an unreadable head", "a well-framed file refused: \(error.description)")
        } catch {
            preconditionFailure("an unexpected error: \(error)")
        }
    default:
        let lines = String(decoding: rest, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        checkCacheControl(lines)
    }
    return 0
}

/// An entry that was read: it re-encodes to a file that reads back to it, and no cut, flipped or lengthened copy
/// of that file is read. `mutation` picks the byte that is flipped and where the file is cut.
private func checkEntry(_ entry: CachedEntry, mutation: Int) {
    let file: Data
    do {
        file = try CachedEntryFile.encode(entry)
    } catch {
        preconditionFailure("an entry that was read cannot be written: \(error)")
    }
    guard let again = try? CachedEntryFile.decode(file) else { preconditionFailure("a written entry cannot be read") }
    precondition(again == entry, "an entry that changes when written and read again")
    precondition(file.starts(with: CachedEntryFile.magic), "a file without the magic line")

    let position = mutation % file.count
    var flipped = file
    flipped[flipped.startIndex + position] ^= UInt8(truncatingIfNeeded: mutation / file.count) | 1
    precondition((try? CachedEntryFile.decode(flipped)) == nil, "a file with byte \(position) flipped was read")
    precondition((try? CachedEntryFile.decode(file.prefix(position))) == nil, "a file cut to \(position) bytes was read")
    precondition((try? CachedEntryFile.decode(file + [UInt8(truncatingIfNeeded: mutation)])) == nil, "a lengthened file was read")
    // A file that is a slice of a larger buffer reads the same.
    let padded = Data([0x55]) + file
    precondition((try? CachedEntryFile.decode(padded.dropFirst())) == entry, "a file read differently from a slice")

    _ = entry.cacheControl
    _ = entry.hasValidator
    for name in entry.varyNames {
        precondition(!name.isEmpty && name == name.lowercased(), "a Vary name that is empty or not lower-cased")
        precondition(name == name.trimmingCharacters(in: .whitespaces), "a Vary name with white space around it")
    }
    checkCacheControl(entry.values("Cache-Control"))
}

/// Directive names are lower-cased and trimmed; delta-seconds are within 0...2³¹ (`max-stale` may be unbounded).
private func checkCacheControl(_ values: [String]) {
    for value in values {
        for (name, _) in CacheControl.directives(in: value) {
            precondition(!name.utf8.contains { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") }, "a directive name with upper case")
            precondition(name.utf8.first != 0x20 && name.utf8.first != 0x09 && name.utf8.last != 0x20 && name.utf8.last != 0x09,
                         "a directive name with white space around it")
        }
    }
    let control = CacheControl(cacheControl: values, pragma: values)
    let bound = 1 << 31
    precondition((control.maxAge ?? 0) >= 0 && (control.maxAge ?? 0) <= bound, "max-age out of range")
    precondition((control.minFresh ?? 0) >= 0 && (control.minFresh ?? 0) <= bound, "min-fresh out of range")
    precondition(control.maxStale.map { $0 == Int.max || (0...bound).contains($0) } ?? true, "max-stale out of range")
}

@_silgen_name("__lsan_disable") private func disableLeakChecks()
@_silgen_name("__lsan_enable") private func enableLeakChecks()

/// `CachedEntryFile.magic`, a `Data` global, initialized where LeakSanitizer does not track it: LeakSanitizer does not
/// recognise the reference a global `Data` keeps to its storage (an enum payload) and would report the 16 bytes as
/// leaked when the process exits. Nothing else is exempt.
private let magicInitialized: Void = {
    disableLeakChecks()
    _ = CachedEntryFile.magic
    enableLeakChecks()
}()

private func append<Integer: FixedWidthInteger>(_ value: Integer, to data: inout Data) {
    withUnsafeBytes(of: value.bigEndian) { data.append(contentsOf: $0) }
}
