import Foundation

/// Why a request's header section was refused before anything was sent.
///
/// A line break in a field value would end the field there and let the rest travel as fields of its own, or as a
/// second request on the same connection (header injection, request splitting and smuggling); a NUL is cut short or
/// read differently by different servers. Every transport request is checked first, before any connection is made.
public enum RequestHeaderError: Error, Equatable, Sendable, LocalizedError, CustomStringConvertible {
    /// A field name that is not an HTTP token (RFC 9110 §5.1): empty, or with a space, colon, control character or
    /// other separator.
    case invalidFieldName(String)
    /// A field value with a control character other than horizontal tab (CR, LF and NUL among them), RFC 9110 §5.5.
    /// `character` is the first such byte.
    case invalidFieldValue(name: String, character: UInt8)
    /// The header section is longer than 64 KiB.
    case sectionTooLarge(bytes: Int, limit: Int)

    /// One sentence naming the field and the problem (never the value: it may hold a credential).
    public var description: String {
        switch self {
        case .invalidFieldName(let name):
            "The header field name \(name.debugDescription) is not an HTTP token; the request was not sent."
        case .invalidFieldValue(let name, let character):
            "The value of the header field \(name) contains the control character 0x\(String(character, radix: 16, uppercase: true)); the request was not sent."
        case .sectionTooLarge(let bytes, let limit):
            "The request's header section is \(bytes) bytes, more than the \(limit) allowed; the request was not sent."
        }
    }

    /// The same as ``description``.
    public var errorDescription: String? { description }
}

/// What a request's header section must satisfy before any engine sees it: names are tokens, values hold no
/// control character but horizontal tab, and the section fits ``maximumSectionBytes``.
///
/// Hand-written rather than left to the engine: AsyncHTTPClient refuses bad names and values too, but with its own
/// error types, after a connection may have been made, and without a size limit.
enum RequestHeaderCheck {
    /// The longest header section sent: 64 KiB (each field counted as `name: value` and CRLF). Servers refuse far
    /// less (nginx 32 KiB by default), so a longer section is a mistake or an attack, never a request that works.
    static let maximumSectionBytes = 64 * 1024

    /// Checks `headers`.
    /// - Throws: ``RequestHeaderError`` for the first field that is wrong, or a section that is too long.
    static func check(_ headers: [(name: String, value: String)]) throws(RequestHeaderError) {
        var total = 0
        for (name, value) in headers {
            guard RequestURLCheck.isToken(name) else { throw .invalidFieldName(name) }
            if let bad = value.utf8.first(where: { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }) {
                throw .invalidFieldValue(name: name, character: bad)
            }
            total += name.utf8.count + value.utf8.count + 4
        }
        guard total <= maximumSectionBytes else { throw .sectionTooLarge(bytes: total, limit: maximumSectionBytes) }
    }
}
