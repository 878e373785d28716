// Self-contained (Foundation only): also compiled into the fuzz target in /Fuzz.
import Foundation
// Foundation's own lower layer (swift-corelibs-foundation ships it as a module on Linux): its IANA charset
// resolver is the one AFNetworking used (`CFStringConvertIANACharSetNameToEncoding`).
import CoreFoundation

/// Maps `charset` names to string encodings and decodes text bodies with them.
///
/// Names resolve through CoreFoundation's IANA charset table (`CFStringConvertIANACharSetNameToEncoding`,
/// case-insensitive, names and most registry aliases), after `registryAliases` (the registry aliases it lacks or
/// maps wrongly). A name resolves only to an encoding Foundation can decode on this platform; text is then decoded
/// by Foundation (`String(bytes:encoding:)`), apart from the fixes below.
///
/// Measured with Foundation on Linux (Swift 6.3.1, swift-corelibs-foundation with ICU), against Python 3.11's codecs
/// decoding the same bytes (every byte of the single-byte charsets, sample text of the others):
/// - Decoded the same as Python: UTF-8, UTF-16 (BOM, none = big-endian, BE, LE), UTF-32, US-ASCII,
///   ISO-8859-1…11 and 13…16, windows-1250…1258, KOI8-R, KOI8-U, IBM866, Shift_JIS, ISO-2022-JP, GB18030, GBK,
///   GB2312, Big5 and EUC-KR.
/// - EUC-JP: Foundation decodes nothing (`.japaneseEUC` and CF's EUC-JP both return nil, even for valid text), so
///   it is rewritten, byte for byte, as ISO-2022-JP-1 (the same JIS X 0208, JIS X 0212 and half-width katakana code
///   points behind escape sequences instead of the high bit), which Foundation decodes.
/// - `macintosh`: `.macOSRoman` decodes bytes 0x80…0xFF wrongly (0x80 gives U+00A0, not U+00C4);
///   CoreFoundation's Mac Roman (`0x80000000`) decodes them correctly and is used instead.
/// - `x-mac-arabic`, `x-mac-hebrew` and 173 of the registry's 257 charsets (EBCDIC and ISO 646 variants, JIS X 0201 …)
///   have no converter or no name CF knows: they are unsupported.
/// - Invalid bytes: UTF-8, UTF-16/32 (unpaired surrogates), US-ASCII, Shift_JIS, EUC-KR, GB2312, GB18030, Big5
///   (truncated or bad trail bytes), ISO-2022-JP, windows-1252 and bytes unassigned in ISO-8859-3/6/7/8/11 fail.
///   Lossy, where Python fails: the other windows-125x charsets turn unassigned bytes into C1 controls (as WHATWG's
///   decoders do), GBK and Big5 turn 0xFF into private-use characters and EUC-KR user-defined rows too. Foundation
///   drops the last byte of an odd-length UTF-16 body and returns "" for a UTF-32 one of the wrong length, so those
///   lengths are checked here.
package enum CharsetDecoding {
    /// Why a body could not be decoded as text.
    package enum Failure: Error, Equatable, Sendable {
        /// The charset (as written) names no encoding Foundation can decode here: not in the registry, or without
        /// a converter on this platform.
        case unsupportedCharset(String)
        /// The bytes are not valid text in the encoding.
        case invalidBytes(String.Encoding)
    }

    /// Registry aliases that CoreFoundation on Linux does not resolve, or resolves to another encoding than the
    /// charset they are registered for, mapped (lowercased) to the registry name CF resolves.
    ///
    /// Hand-written because CF's table misses them. Derived from the IANA character-sets registry
    /// (https://www.iana.org/assignments/character-sets, 257 charsets, 886 names and aliases): every alias of a
    /// charset whose name CF resolves to an encoding Foundation decodes, where CF returns nothing or a different
    /// encoding for the alias. CF got these wrong: `cyrillic`, `arabic`, `greek`, `hebrew` (registry: ISO-8859-5/6/7/8;
    /// CF: Mac Cyrillic, Arabic, Greek, Hebrew), `korean` (KS_C_5601-1987; CF: Mac Korean), `MS_Kanji` and
    /// `csShiftJIS` (Shift_JIS; CF: Windows-31J), `csBig5` (Big5; CF: Windows-950).
    static let registryAliases: [String: String] = [
        "cyrillic": "ISO-8859-5", "arabic": "ISO-8859-6", "greek": "ISO-8859-7", "hebrew": "ISO-8859-8",
        "korean": "KS_C_5601-1987", "ms_kanji": "Shift_JIS", "csshiftjis": "Shift_JIS", "csbig5": "Big5",
        "csiso88596e": "ISO-8859-6-E", "csiso88596i": "ISO-8859-6-I", "csiso88598e": "ISO-8859-8-E",
        "csiso88598i": "ISO-8859-8-I", "csiso885913": "ISO-8859-13",
        "iso-ir-199": "ISO-8859-14", "iso_8859-14:1998": "ISO-8859-14", "iso_8859-14": "ISO-8859-14",
        "latin8": "ISO-8859-14", "iso-celtic": "ISO-8859-14", "l8": "ISO-8859-14", "csiso885914": "ISO-8859-14",
        "csiso885915": "ISO-8859-15",
        "iso-ir-226": "ISO-8859-16", "iso_8859-16:2001": "ISO-8859-16", "iso_8859-16": "ISO-8859-16",
        "latin10": "ISO-8859-16", "l10": "ISO-8859-16", "csiso885916": "ISO-8859-16",
        "cswindows30latin1": "ISO-8859-1-Windows-3.0-Latin-1", "cswindows31latin1": "ISO-8859-1-Windows-3.1-Latin-1",
        "cswindows31latin2": "ISO-8859-2-Windows-Latin-2", "cswindows31latin5": "ISO-8859-9-Windows-Latin-5",
        "cswindows874": "windows-874", "cswindows1250": "windows-1250", "cswindows1251": "windows-1251",
        "cswindows1252": "windows-1252", "cswindows1253": "windows-1253", "cswindows1254": "windows-1254",
        "cswindows1255": "windows-1255", "cswindows1256": "windows-1256", "cswindows1257": "windows-1257",
        "cswindows1258": "windows-1258",
        "csutf8": "UTF-8", "csutf16": "UTF-16", "csutf16be": "UTF-16BE", "csutf16le": "UTF-16LE",
        "csutf32": "UTF-32", "csutf32be": "UTF-32BE", "csutf32le": "UTF-32LE",
        "csutf7": "UTF-7", "csunicode11utf7": "UNICODE-1-1-UTF-7",
        "csgbk": "GBK", "csgb18030": "GB18030", "csbig5hkscs": "Big5-HKSCS", "cskoi8u": "KOI8-U",
        "csiso2022cnext": "ISO-2022-CN-EXT", "csibm851": "IBM851", "csviscii": "VISCII", "cstis620": "TIS-620",
    ]

    /// The encoding for an IANA charset name or alias (case-insensitive, surrounding spaces ignored), or nil when
    /// the name is unknown or Foundation cannot decode its encoding on this platform.
    ///
    /// CF also accepts names the registry does not list (`cp1251`, `x-sjis`, `ms936`, `utf8`) and ignores
    /// punctuation when it compares (`utf_8`, `latin-1`, `iso 8859 1`).
    ///
    /// The encodings Foundation names (`.isoLatin2`, `.windowsCP1251`, `.shiftJIS` …) come back as those
    /// constants; the others as `String.Encoding(rawValue:)` of CF's encoding (`CFStringConvertEncodingToNSStringEncoding`).
    package static func encoding(forCharset charset: String) -> String.Encoding? {
        let name = charset.trimmingCharacters(in: .whitespaces)
        // Almost every response says UTF-8: answered without CoreFoundation's table.
        if name.utf8.count <= 5, ["utf-8", "utf8"].contains(name.lowercased()) { return .utf8 }
        // Registry names are printable ASCII, at most 45 characters. This also keeps NUL out of the C string.
        guard (1...64).contains(name.utf8.count), name.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else { return nil }
        let registered = registryAliases[name.lowercased()] ?? name
        guard let cfName = CFStringCreateWithCString(nil, registered, CFStringBuiltInEncodings.ASCII.rawValue) else { return nil }
        let cfEncoding = CFStringConvertIANACharSetNameToEncoding(cfName)
        // ISO-8859-12 was never published: CF resolves the name by its pattern, to an encoding that decodes ASCII only.
        guard cfEncoding != kCFStringEncodingInvalidId, cfEncoding != 0x020C else { return nil }
        let encoding = String.Encoding(rawValue: UInt(CFStringConvertEncodingToNSStringEncoding(cfEncoding)))
        return isDecodable(encoding) ? encoding : nil
    }

    /// The registry's name for `encoding` as CoreFoundation gives it (`iso-8859-5`, `shift_jis` …), or nil.
    static func charsetName(for encoding: String.Encoding) -> String? {
        let cfEncoding = CFStringConvertNSStringEncodingToEncoding(UInt(encoding.rawValue))
        guard cfEncoding != kCFStringEncodingInvalidId, let name = CFStringConvertEncodingToIANACharSetName(cfEncoding) else {
            return nil
        }
        var buffer = [CChar](repeating: 0, count: 128)
        guard CFStringGetCString(name, &buffer, buffer.count, CFStringBuiltInEncodings.ASCII.rawValue) else { return nil }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Decodes `data` as text.
    ///
    /// A byte order mark wins over everything (UTF-8, UTF-16 BE/LE, and UTF-32 BE/LE when the chosen encoding is
    /// UTF-32; it is removed); then the charset; then `defaultEncoding` (default UTF-8) when there is no charset.
    /// `utf-16` and `utf-32` without a BOM are read big-endian (RFC 2781).
    ///
    /// - Throws: ``Failure/unsupportedCharset(_:)`` when `charset` is given but ``encoding(forCharset:)`` knows no
    ///   encoding for it and no byte order mark decides (no fallback to `defaultEncoding`);
    ///   ``Failure/invalidBytes(_:)`` when the bytes are not valid in the chosen encoding.
    package static func decoding(
        _ data: Data, charset: String?, defaultEncoding: String.Encoding = .utf8
    ) throws(Failure) -> String {
        let bytes = [UInt8](data)
        var chosen = defaultEncoding
        if let charset {
            guard let known = encoding(forCharset: charset) else {
                if let (encoding, length) = byteOrderMark(bytes, chosen: defaultEncoding) {
                    return try text(bytes.dropFirst(length), as: encoding)
                }
                throw .unsupportedCharset(charset)
            }
            chosen = known
        }
        if let (encoding, length) = byteOrderMark(bytes, chosen: chosen) {
            return try text(bytes.dropFirst(length), as: encoding)
        }
        return try text(bytes[...], as: chosen)
    }

    /// ``decoding(_:charset:defaultEncoding:)`` without the reason: nil when the charset is unsupported or the bytes
    /// are not valid text in the chosen encoding.
    static func decode(_ data: Data, charset: String?, defaultEncoding: String.Encoding = .utf8) -> String? {
        try? decoding(data, charset: charset, defaultEncoding: defaultEncoding)
    }

    /// The encoding a byte order mark at the start of `bytes` announces, and the mark's length.
    private static func byteOrderMark(_ bytes: [UInt8], chosen: String.Encoding) -> (String.Encoding, Int)? {
        if [String.Encoding.utf32, .utf32BigEndian, .utf32LittleEndian].contains(chosen) {
            if bytes.starts(with: [0x00, 0x00, 0xFE, 0xFF]) { return (.utf32BigEndian, 4) }
            if bytes.starts(with: [0xFF, 0xFE, 0x00, 0x00]) { return (.utf32LittleEndian, 4) }
        }
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { return (.utf8, 3) }
        if bytes.starts(with: [0xFE, 0xFF]) { return (.utf16BigEndian, 2) }
        if bytes.starts(with: [0xFF, 0xFE]) { return (.utf16LittleEndian, 2) }
        return nil
    }

    /// The Unicode encodings, decoded without a probe.
    private static let unicodeEncodings: Set<UInt> = Set(
        [String.Encoding.utf8, .utf16, .utf16BigEndian, .utf16LittleEndian, .utf32, .utf32BigEndian, .utf32LittleEndian]
            .map(\.rawValue)
    )

    /// Whether Foundation decodes `encoding` here: Unicode and EUC-JP always; another when it decodes "A".
    private static func isDecodable(_ encoding: String.Encoding) -> Bool {
        if unicodeEncodings.contains(encoding.rawValue) || encoding == .japaneseEUC { return true }
        return (try? text([0x41], as: encoding)) != nil
    }

    /// CoreFoundation's Mac Roman, which decodes correctly where `.macOSRoman` does not (see the type's notes).
    private static let coreFoundationMacRoman = String.Encoding(rawValue: 0x8000_0000)
    /// CoreFoundation's ISO-2022-JP-1 (`kCFStringEncodingISO_2022_JP_1`), which EUC-JP is rewritten to.
    private static let iso2022JP1 = String.Encoding(rawValue: 0x8000_0822)

    /// `bytes` decoded as `encoding` (no byte order mark handling).
    private static func text(_ bytes: ArraySlice<UInt8>, as encoding: String.Encoding) throws(Failure) -> String {
        let decoded: String?
        switch encoding {
        case .utf8:
            decoded = String(validatingUTF8Bytes: bytes)
        case .utf16, .utf16BigEndian, .utf16LittleEndian:
            let order = encoding == .utf16LittleEndian ? String.Encoding.utf16LittleEndian : .utf16BigEndian
            decoded = bytes.count.isMultiple(of: 2) ? String(bytes: bytes, encoding: order) : nil
        case .utf32, .utf32BigEndian, .utf32LittleEndian:
            let order = encoding == .utf32LittleEndian ? String.Encoding.utf32LittleEndian : .utf32BigEndian
            decoded = bytes.count.isMultiple(of: 4) ? String(bytes: bytes, encoding: order) : nil
        case .japaneseEUC:
            decoded = iso2022JP1(fromEUCJP: bytes).flatMap { String(bytes: $0, encoding: iso2022JP1) }
        case .macOSRoman:
            decoded = String(bytes: bytes, encoding: coreFoundationMacRoman)
        default:
            decoded = String(bytes: bytes, encoding: encoding)
        }
        guard let decoded else { throw .invalidBytes(encoding) }
        return decoded
    }

    /// EUC-JP rewritten as ISO-2022-JP-1: ASCII stays (after `ESC ( B`), JIS X 0208 pairs (0xA1…0xFE twice) follow
    /// `ESC $ B`, half-width katakana (0x8E, 0xA1…0xDF) `ESC ( I` and JIS X 0212 (0x8F and a pair) `ESC $ ( D`, each
    /// with the high bit cleared; the output ends in ASCII. Nil for bytes that are not EUC-JP, and for ESC, SO and SI,
    /// which would be read as ISO-2022 controls.
    static func iso2022JP1(fromEUCJP bytes: ArraySlice<UInt8>) -> [UInt8]? {
        enum CodeSet { case ascii, jisX0208, katakana, jisX0212 }
        let escapes: [CodeSet: [UInt8]] = [
            .ascii: [0x1B, 0x28, 0x42], .jisX0208: [0x1B, 0x24, 0x42],
            .katakana: [0x1B, 0x28, 0x49], .jisX0212: [0x1B, 0x24, 0x28, 0x44],
        ]
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count + bytes.count / 2)
        var current = CodeSet.ascii
        func emit(_ set: CodeSet, _ codes: UInt8...) {
            if set != current, let escape = escapes[set] {
                output.append(contentsOf: escape)
                current = set
            }
            output.append(contentsOf: codes)
        }
        let isDoubleByte: (UInt8) -> Bool = { (0xA1...0xFE).contains($0) }
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            let rest = bytes.endIndex - index
            switch byte {
            case 0x1B, 0x0E, 0x0F:
                return nil
            case 0x00...0x7F:
                emit(.ascii, byte)
                index += 1
            case 0x8E:
                guard rest >= 2, (0xA1...0xDF).contains(bytes[index + 1]) else { return nil }
                emit(.katakana, bytes[index + 1] & 0x7F)
                index += 2
            case 0x8F:
                guard rest >= 3, isDoubleByte(bytes[index + 1]), isDoubleByte(bytes[index + 2]) else { return nil }
                emit(.jisX0212, bytes[index + 1] & 0x7F, bytes[index + 2] & 0x7F)
                index += 3
            case 0xA1...0xFE:
                guard rest >= 2, isDoubleByte(bytes[index + 1]) else { return nil }
                emit(.jisX0208, byte & 0x7F, bytes[index + 1] & 0x7F)
                index += 2
            default:
                return nil
            }
        }
        if current != .ascii, let escape = escapes[.ascii] { output.append(contentsOf: escape) }
        return output
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
