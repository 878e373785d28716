import Foundation

/// The `Cache-Control` directives a private cache acts on (RFC 9111 §5.2), from a request's or a response's fields.
///
/// Hand-written: `Cache-Control` is not a Structured Field (its values mix tokens, quoted strings and bare numbers),
/// so swift-http-structured-headers cannot read it, and nothing else maintained parses it for clients.
struct CacheControl: Equatable, Sendable {
    /// `max-age`, in seconds (an invalid value counts as 0: stale, RFC 9111 §4.2.1).
    var maxAge: Int?
    /// `max-stale` (request): a stale response is acceptable up to this many seconds past its freshness, or any
    /// when the directive has no value (`Int.max`).
    var maxStale: Int?
    /// `min-fresh` (request): the response must stay fresh this many seconds more.
    var minFresh: Int?
    var noStore = false
    var noCache = false
    var mustRevalidate = false
    var isPublic = false
    var isPrivate = false
    var onlyIfCached = false

    /// The directives of every `Cache-Control` field value given; a `Pragma: no-cache` without `Cache-Control`
    /// counts as `no-cache` (RFC 9111 §5.4, for HTTP/1.0 peers).
    init(cacheControl values: [String], pragma: [String] = []) {
        if values.isEmpty, pragma.isEmpty { return }
        for value in values {
            for (name, argument) in Self.directives(in: value) {
                switch name {
                case "max-age": maxAge = Self.seconds(argument) ?? 0
                case "max-stale": maxStale = argument == nil ? Int.max : Self.seconds(argument) ?? 0
                case "min-fresh": minFresh = Self.seconds(argument) ?? 0
                case "no-store": noStore = true
                case "no-cache": noCache = true
                case "must-revalidate": mustRevalidate = true
                case "public": isPublic = true
                case "private": isPrivate = true
                case "only-if-cached": onlyIfCached = true
                default: continue
                }
            }
        }
        if values.isEmpty, pragma.contains(where: { $0.lowercased().contains("no-cache") }) { noCache = true }
    }

    /// `name[=argument]` pairs, names lower-cased, arguments unquoted; commas inside quotes do not split. Scans the
    /// UTF-8 bytes once (it runs for every response a cache sees).
    static func directives(in value: String) -> [(String, String?)] {
        let bytes = Array(value.utf8)
        var result: [(String, String?)] = []
        var start = 0
        var index = 0
        var inQuotes = false
        func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 }
        func flush(_ end: Int) {
            var low = start, high = end
            while low < high, isSpace(bytes[low]) { low += 1 }
            while high > low, isSpace(bytes[high - 1]) { high -= 1 }
            guard low < high else { return }
            var equals = low
            while equals < high, bytes[equals] != UInt8(ascii: "=") { equals += 1 }
            var nameEnd = equals
            while nameEnd > low, isSpace(bytes[nameEnd - 1]) { nameEnd -= 1 }
            // Directive names are ASCII tokens: lower-case them byte by byte.
            let name = String(decoding: bytes[low..<nameEnd].map { $0 >= 0x41 && $0 <= 0x5A ? $0 + 0x20 : $0 }, as: UTF8.self)
            guard equals < high else {
                result.append((name, nil))
                return
            }
            var argumentStart = equals + 1
            while argumentStart < high, isSpace(bytes[argumentStart]) { argumentStart += 1 }
            var argument = String(decoding: bytes[argumentStart..<high], as: UTF8.self)
            if high - argumentStart >= 2, bytes[argumentStart] == UInt8(ascii: "\""), bytes[high - 1] == UInt8(ascii: "\"") {
                argument = String(argument.dropFirst().dropLast()).replacingOccurrences(of: "\\\"", with: "\"")
            }
            result.append((name, argument))
        }
        while index < bytes.count {
            let byte = bytes[index]
            if inQuotes, byte == UInt8(ascii: "\\") {
                index += 2
                continue
            }
            if byte == UInt8(ascii: "\"") {
                inQuotes.toggle()
            } else if byte == UInt8(ascii: ","), !inQuotes {
                flush(index)
                start = index + 1
            }
            index += 1
        }
        flush(Swift.min(index, bytes.count))
        return result
    }

    /// A `delta-seconds` value (RFC 9111 §1.2.2): digits only; a value past 2³¹ is 2³¹.
    static func seconds(_ argument: String?) -> Int? {
        guard let argument, !argument.isEmpty, argument.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return Int(argument.prefix(10)).map { Swift.min($0, 1 << 31) } ?? (1 << 31)
    }
}
