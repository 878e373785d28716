// Self-contained (Foundation only): also compiled into the fuzz target in /Fuzz.
import Foundation

/// Maps `charset` names to string encodings and decodes text bodies with them.
public enum CharsetDecoding {
    /// The encoding for an IANA charset name (case-insensitive; common aliases accepted), or nil
    /// when Courier does not know it.
    public static func encoding(forCharset charset: String) -> String.Encoding? {
        let name = charset.trimmingCharacters(in: .whitespaces).lowercased()
        switch name {
        case "utf-8", "utf8", "unicode-1-1-utf-8": return .utf8
        case "us-ascii", "ascii", "ansi_x3.4-1968", "iso646-us": return .ascii
        case "iso-8859-1", "iso8859-1", "iso_8859-1", "latin1", "l1", "cp819", "ibm819": return .isoLatin1
        case "iso-8859-2", "iso8859-2", "iso_8859-2", "latin2", "l2": return .isoLatin2
        case "windows-1250", "cp1250": return .windowsCP1250
        case "windows-1251", "cp1251": return .windowsCP1251
        case "windows-1252", "cp1252": return .windowsCP1252
        case "windows-1253", "cp1253": return .windowsCP1253
        case "windows-1254", "cp1254": return .windowsCP1254
        case "utf-16", "utf16", "unicode": return .utf16
        case "utf-16be": return .utf16BigEndian
        case "utf-16le": return .utf16LittleEndian
        case "utf-32", "utf32": return .utf32
        case "utf-32be": return .utf32BigEndian
        case "utf-32le": return .utf32LittleEndian
        case "shift_jis", "shift-jis", "sjis", "ms_kanji", "csshiftjis": return .shiftJIS
        case "euc-jp", "eucjp": return .japaneseEUC
        case "iso-2022-jp": return .iso2022JP
        case "macintosh", "mac", "x-mac-roman": return .macOSRoman
        default: return nil
        }
    }

    /// Decodes `data` as text.
    ///
    /// A byte order mark wins over everything (UTF-8, UTF-16 BE/LE, and is removed); then the
    /// charset, when known; then `defaultEncoding`. `utf-16` without a BOM is read big-endian
    /// (RFC 2781). Returns nil when the bytes are not valid in the chosen encoding.
    public static func decode(_ data: Data, charset: String?, defaultEncoding: String.Encoding = .utf8) -> String? {
        let bytes = [UInt8](data)
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) {
            return String(validatingUTF8Bytes: bytes.dropFirst(3))
        }
        if bytes.starts(with: [0xFE, 0xFF]) {
            return String(bytes: bytes.dropFirst(2), encoding: .utf16BigEndian)
        }
        if bytes.starts(with: [0xFF, 0xFE]) {
            return String(bytes: bytes.dropFirst(2), encoding: .utf16LittleEndian)
        }
        var chosen = charset.flatMap { Self.encoding(forCharset: $0) } ?? defaultEncoding
        if chosen == .utf16 { chosen = .utf16BigEndian }
        if chosen == .utf8 { return String(validatingUTF8Bytes: bytes[...]) }
        if chosen == .utf16BigEndian || chosen == .utf16LittleEndian, bytes.count % 2 != 0 { return nil }
        return String(bytes: bytes, encoding: chosen)
    }
}

extension String {
    /// Strict UTF-8 decoding: nil when the bytes are not valid UTF-8.
    init?(validatingUTF8Bytes bytes: ArraySlice<UInt8>) {
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        var scalars = String.UnicodeScalarView()
        decoding: while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar): scalars.append(scalar)
            case .emptyInput: break decoding
            case .error: return nil
            }
        }
        self = String(scalars)
    }
}
