import Foundation

/// RFC 3986 percent-escaping for query string keys and values.
///
/// The characters left as they are: ASCII letters and digits and `-._~/?` — the query-allowed
/// set without the delimiters `:#[]@` and the sub-delimiters `!$&'()*+,;=`, as in AFNetworking.
/// Everything else is written as `%XX` (uppercase) bytes of the string encoding.
enum PercentEscaping {
    /// Whether an ASCII byte stays as it is.
    static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"),
             UInt8(ascii: "/"), UInt8(ascii: "?"):
            return true
        default:
            return false
        }
    }

    /// Escapes `string` for a query string.
    ///
    /// The work is done one `Character` (grapheme cluster) at a time, so a composed character —
    /// an emoji with modifiers, a flag, a letter with combining marks — is always converted as a
    /// whole and never split between two batches.
    ///
    /// - Throws: ``RequestSerializationError/unrepresentableString(_:encoding:)`` when a character
    ///   has no representation in `encoding`.
    static func escape(_ string: String, encoding: String.Encoding = .utf8) throws -> String {
        var escaped = ""
        escaped.reserveCapacity(string.utf8.count)
        for character in string {
            let bytes: [UInt8]
            if encoding == .utf8 {
                bytes = Array(character.utf8)
            } else {
                guard let data = String(character).data(using: encoding, allowLossyConversion: false) else {
                    throw RequestSerializationError.unrepresentableString(string, encoding: encoding)
                }
                bytes = Array(data)
            }
            for byte in bytes {
                if byte < 0x80, isUnreserved(byte) {
                    escaped.unicodeScalars.append(Unicode.Scalar(byte))
                } else {
                    escaped += "%" + hexDigits[Int(byte >> 4)] + hexDigits[Int(byte & 0x0F)]
                }
            }
        }
        return escaped
    }

    private static let hexDigits = ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "A", "B", "C", "D", "E", "F"]
}
