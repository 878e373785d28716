import Foundation

/// Writes words so that a POSIX shell (sh, bash, zsh) reads each back as exactly one argument
/// (used by `cURLDescription`, and by `courier` for the commands it suggests).
package enum ShellQuoting {
    /// Characters that never need quoting.
    private static let plain = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.,/:@%+=".unicodeScalars)

    /// `text` as one shell word: unchanged when it has only plain characters, otherwise in single quotes
    /// (an embedded `'` written as `'\''`).
    public static func quote(_ text: String) -> String {
        if !text.isEmpty, text.unicodeScalars.allSatisfy(plain.contains) { return text }
        return "'" + text.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
    }

    /// `bytes` as one shell word: quoted text when they are UTF-8 without NUL bytes, otherwise an ANSI-C
    /// `$'…'` word (bash, zsh, ksh) with `\xHH` escapes. A NUL byte ends an argument in any shell.
    static func quote(bytes: Data) -> String {
        if let text = String(data: bytes, encoding: .utf8), !text.unicodeScalars.contains(where: { $0.value == 0 }) {
            return quote(text)
        }
        var word = "$'"
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "'"), UInt8(ascii: "\\"):
                word += "\\" + String(UnicodeScalar(byte))
            case 0x20...0x7E:
                word += String(UnicodeScalar(byte))
            default:
                word += "\\x" + (byte < 16 ? "0" : "") + String(byte, radix: 16)
            }
        }
        return word + "'"
    }
}
