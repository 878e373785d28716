// Self-contained (Foundation-free): also compiled into the fuzz target in /Fuzz.

/// A parsed `Content-Type` value: `type/subtype` and its parameters.
///
/// Parsing follows RFC 9110 §8.3.1 leniently: whitespace around `;` and `=` is skipped, parameter
/// values may be tokens or quoted strings (with `\` escapes), names are case-insensitive, and a
/// malformed parameter ends the parameter list without discarding the media type.
package struct MediaType: Sendable, Equatable {
    /// The top-level type, lowercased (`text`, `application`, ...).
    let type: String
    /// The subtype, lowercased (`json`, `html`, ...).
    let subtype: String
    /// The parameters; names lowercased, values as written (first occurrence wins).
    let parameters: [String: String]

    /// `type/subtype`, lowercased: the MIME type compared with acceptable content types.
    package var mimeType: String { "\(type)/\(subtype)" }

    /// Whether this is `text/event-stream` (Server-Sent Events): the one check the library's event streams and the
    /// command line's printer share.
    package var isEventStream: Bool { type == "text" && subtype == "event-stream" }

    /// The `charset` parameter, if any.
    package var charset: String? { parameters["charset"] }

    /// Parses a `Content-Type` header value; `nil` unless it starts with `type/subtype`.
    package init?(parsing value: String) {
        var scanner = HeaderValueScanner(Array(value.utf8))
        scanner.skipWhitespace()
        guard let type = scanner.token(), scanner.consume(UInt8(ascii: "/")), let subtype = scanner.token() else {
            return nil
        }
        var parameters: [String: String] = [:]
        while true {
            scanner.skipWhitespace()
            guard scanner.consume(UInt8(ascii: ";")) else { break }
            scanner.skipWhitespace()
            if scanner.isAtEnd { break }
            if scanner.peek == UInt8(ascii: ";") { continue }
            guard let name = scanner.token() else { break }
            scanner.skipWhitespace()
            guard scanner.consume(UInt8(ascii: "=")) else { break }
            scanner.skipWhitespace()
            let parameterValue: String?
            if scanner.peek == UInt8(ascii: "\"") {
                parameterValue = scanner.quotedString()
            } else {
                parameterValue = scanner.token()
            }
            guard let parameterValue else { break }
            let key = name.lowercased()
            if parameters[key] == nil { parameters[key] = parameterValue }
        }
        self.type = type.lowercased()
        self.subtype = subtype.lowercased()
        self.parameters = parameters
    }
}

/// A cursor over the bytes of a header value.
struct HeaderValueScanner {
    private let bytes: [UInt8]
    private var index = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var isAtEnd: Bool { index >= bytes.count }
    var peek: UInt8? { isAtEnd ? nil : bytes[index] }

    mutating func skipWhitespace() {
        while let byte = peek, byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") { index += 1 }
    }

    mutating func consume(_ byte: UInt8) -> Bool {
        guard peek == byte else { return false }
        index += 1
        return true
    }

    /// RFC 9110 `tchar`: letters, digits and ``!#$%&'*+-.^_`|~``.
    static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return Array("!#$%&'*+-.^_`|~".utf8).contains(byte)
        }
    }

    /// A non-empty token, or nil (nothing consumed).
    mutating func token() -> String? {
        let start = index
        while let byte = peek, Self.isTokenByte(byte) { index += 1 }
        guard index > start else { return nil }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    /// A quoted string starting at `"`, unescaped; nil when it is not closed.
    mutating func quotedString() -> String? {
        let start = index
        guard consume(UInt8(ascii: "\"")) else { return nil }
        var content: [UInt8] = []
        while let byte = peek {
            index += 1
            if byte == UInt8(ascii: "\"") { return String(decoding: content, as: UTF8.self) }
            if byte == UInt8(ascii: "\\") {
                guard let escaped = peek else { break }
                index += 1
                content.append(escaped)
            } else {
                content.append(byte)
            }
        }
        index = start
        return nil
    }
}
