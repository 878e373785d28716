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

    /// `name[=argument]` pairs, names lower-cased, arguments unquoted; commas inside quotes do not split.
    static func directives(in value: String) -> [(String, String?)] {
        var result: [(String, String?)] = []
        var current = ""
        var inQuotes = false
        var escaped = false
        func flush() {
            let part = current.trimmingCharacters(in: .whitespaces)
            current = ""
            guard !part.isEmpty else { return }
            if let equals = part.firstIndex(of: "=") {
                let name = part[..<equals].trimmingCharacters(in: .whitespaces).lowercased()
                var argument = part[part.index(after: equals)...].trimmingCharacters(in: .whitespaces)
                if argument.count >= 2, argument.hasPrefix("\""), argument.hasSuffix("\"") {
                    argument = String(argument.dropFirst().dropLast()).replacingOccurrences(of: "\\\"", with: "\"")
                }
                result.append((name, argument))
            } else {
                result.append((part.lowercased(), nil))
            }
        }
        for character in value {
            if escaped {
                escaped = false
            } else if character == "\\" && inQuotes {
                escaped = true
            } else if character == "\"" {
                inQuotes.toggle()
            } else if character == "," && !inQuotes {
                flush()
                continue
            }
            current.append(character)
        }
        flush()
        return result
    }

    /// A `delta-seconds` value (RFC 9111 §1.2.2): digits only; a value past 2³¹ is 2³¹.
    static func seconds(_ argument: String?) -> Int? {
        guard let argument, !argument.isEmpty, argument.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return Int(argument.prefix(10)).map { Swift.min($0, 1 << 31) } ?? (1 << 31)
    }
}
