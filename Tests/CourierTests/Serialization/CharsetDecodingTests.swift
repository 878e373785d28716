import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import Courier

@Suite("Charset decoding: IANA names and aliases, unsupported charsets, decoding per charset")
struct CharsetDecodingTests {
    typealias Support = SerializationTestSupport

    /// A registry alias and the charset it is registered for, as CoreFoundation names it.
    @Test(arguments: [
        ("UTF-8", "utf-8"), ("csUTF8", "utf-8"), ("unicode-1-1-utf-8", "utf-8"), ("US-ASCII", "us-ascii"),
        ("ANSI_X3.4-1968", "us-ascii"), ("latin1", "iso-8859-1"), ("ISO_8859-1:1987", "iso-8859-1"),
        ("latin2", "iso-8859-2"), ("csISOLatin2", "iso-8859-2"), ("l3", "iso-8859-3"), ("latin4", "iso-8859-4"),
        ("cyrillic", "iso-8859-5"), ("arabic", "iso-8859-6"), ("ECMA-114", "iso-8859-6"), ("greek", "iso-8859-7"),
        ("hebrew", "iso-8859-8"), ("latin5", "iso-8859-9"), ("latin6", "iso-8859-10"), ("csISO885913", "iso-8859-13"),
        ("latin8", "iso-8859-14"), ("ISO_8859-14:1998", "iso-8859-14"), ("Latin-9", "iso-8859-15"),
        ("csISO885915", "iso-8859-15"), ("latin10", "iso-8859-16"), ("cp1250", "windows-1250"),
        ("cswindows1250", "windows-1250"), ("cp1251", "windows-1251"), ("cswindows1256", "windows-1256"),
        ("windows-1258", "windows-1258"), ("csKOI8R", "koi8-r"), ("csKOI8U", "koi8-u"), ("Shift_JIS", "shift_jis"),
        ("MS_Kanji", "shift_jis"), ("csShiftJIS", "shift_jis"), ("x-sjis", "cp932"), ("EUC-JP", "euc-jp"),
        ("csEUCPkdFmtJapanese", "euc-jp"), ("csISO2022JP", "iso-2022-jp"), ("GB18030", "gb18030"),
        ("csGB18030", "gb18030"), ("GBK", "cp936"), ("ms936", "cp936"), ("csGBK", "cp936"), ("GB2312", "gb2312"),
        ("Big5", "big5"), ("csBig5", "big5"), ("EUC-KR", "euc-kr"), ("csEUCKR", "euc-kr"), ("korean", "cp949"),
        ("csUTF16", "utf-16"), ("csUTF16LE", "utf-16le"), ("macintosh", "macintosh"), (" Windows-1252 ", "windows-1252"),
    ])
    func namesAndAliasesResolve(name: String, registered: String) throws {
        let encoding = try #require(CharsetDecoding.encoding(forCharset: name))
        #expect(CharsetDecoding.charsetName(for: encoding) == registered)
        #expect(CharsetDecoding.encoding(forCharset: name.uppercased()) == encoding)
    }

    @Test func foundationsOwnConstantsComeBack() {
        #expect(CharsetDecoding.encoding(forCharset: "utf-8") == .utf8)
        #expect(CharsetDecoding.encoding(forCharset: "latin1") == .isoLatin1)
        #expect(CharsetDecoding.encoding(forCharset: "latin2") == .isoLatin2)
        #expect(CharsetDecoding.encoding(forCharset: "cp1251") == .windowsCP1251)
        #expect(CharsetDecoding.encoding(forCharset: "windows-1252") == .windowsCP1252)
        #expect(CharsetDecoding.encoding(forCharset: "UTF-16LE") == .utf16LittleEndian)
        #expect(CharsetDecoding.encoding(forCharset: "EUC-JP") == .japaneseEUC)
        #expect(CharsetDecoding.encoding(forCharset: "iso-2022-jp") == .iso2022JP)
        #expect(CharsetDecoding.encoding(forCharset: "macintosh") == .macOSRoman)
    }

    /// Every hand-written alias resolves to the same encoding as the registry name it stands for.
    @Test func everyHandWrittenAliasResolvesLikeItsName() throws {
        for (alias, name) in CharsetDecoding.registryAliases {
            let encoding = try #require(CharsetDecoding.encoding(forCharset: name), "\(name)")
            #expect(CharsetDecoding.encoding(forCharset: alias) == encoding, "\(alias) → \(name)")
        }
    }

    /// Unknown names, names of encodings Foundation cannot decode here, and names that are not names.
    @Test(arguments: [
        "klingon", "", " ", "utf-8\u{0}", "utf-9", "ütf-8", String(repeating: "a", count: 65), "x-mac-arabic",
        "IBM1047", "EBCDIC-US", "JIS_X0201", "ISO-8859-12",
    ])
    func unsupportedNames(name: String) {
        #expect(CharsetDecoding.encoding(forCharset: name) == nil)
        #expect(throws: CharsetDecoding.Failure.unsupportedCharset(name)) {
            try CharsetDecoding.decoding(Data("abc".utf8), charset: name)
        }
        #expect(CharsetDecoding.decode(Data("abc".utf8), charset: name) == nil)
    }

    /// Bytes written by Python's codecs for each charset, and the text Python decodes them to.
    @Test(arguments: [
        ("KOI8-R", [0xF0, 0xD2, 0xC9, 0xD7, 0xC5, 0xD4], "Привет"),
        ("windows-1251", [0xCF, 0xF0, 0xE8, 0xE2, 0xE5, 0xF2], "Привет"),
        ("ISO-8859-15", [0xA4, 0xBD], "€œ"),
        ("ISO-8859-7", [0xD9, 0xEC, 0xDD, 0xE3, 0xE1], "Ωμέγα"),
        ("greek", [0xD9, 0xEC, 0xDD, 0xE3, 0xE1], "Ωμέγα"),
        ("Shift_JIS", [0x93, 0xFA, 0x96, 0x7B, 0xB6, 0xC5], "日本ｶﾅ"),
        ("EUC-JP", [0xC6, 0xFC, 0xCB, 0xDC, 0x8E, 0xB6, 0x8E, 0xC5, 0x8F, 0xB0, 0xA1, 0x0A, 0x41], "日本ｶﾅ丂\nA"),
        ("GB18030", [0xD6, 0xD0, 0xCE, 0xC4, 0xA2, 0xE3, 0x95, 0x32, 0x82, 0x36], "中文€𠀀"),
        ("GBK", [0xD6, 0xD0, 0xCE, 0xC4], "中文"),
        ("Big5", [0xC1, 0x63, 0xC5, 0xE9], "繁體"),
        ("EUC-KR", [0xC7, 0xD1, 0xB1, 0xB9], "한국"),
        ("ISO-2022-JP", [0x1B, 0x24, 0x42, 0x46, 0x7C, 0x4B, 0x5C, 0x1B, 0x28, 0x42], "日本"),
        ("macintosh", [0x80, 0x8E], "Äé"),
        ("utf-16", [0x00, 0x68, 0x00, 0xE9], "hé"),
        ("utf-16", [0xFF, 0xFE, 0x68, 0x00, 0xE9, 0x00], "hé"),
        ("utf-16be", [0xD8, 0x3D, 0xDE, 0x00], "😀"),
        ("utf-16le", [0x3D, 0xD8, 0x00, 0xDE], "😀"),
        ("utf-32", [0x00, 0x01, 0xF6, 0x00], "😀"),
        ("utf-32", [0xFF, 0xFE, 0x00, 0x00, 0x00, 0xF6, 0x01, 0x00], "😀"),
    ] as [(String, [UInt8], String)])
    func decodesLikePython(charset: String, bytes: [UInt8], text: String) throws {
        #expect(try CharsetDecoding.decoding(Data(bytes), charset: charset) == text)
    }

    @Test func invalidBytesAreAnErrorNamingTheEncoding() throws {
        let shiftJIS = try #require(CharsetDecoding.encoding(forCharset: "Shift_JIS"))
        #expect(throws: CharsetDecoding.Failure.invalidBytes(shiftJIS)) {
            try CharsetDecoding.decoding(Data([0x93, 0xFA, 0x96]), charset: "Shift_JIS")
        }
        #expect(throws: CharsetDecoding.Failure.invalidBytes(.japaneseEUC)) {
            try CharsetDecoding.decoding(Data([0xC6, 0xFC, 0xCB]), charset: "EUC-JP")
        }
        // ESC would be read as an ISO-2022 escape once EUC-JP is rewritten: refused.
        #expect(throws: CharsetDecoding.Failure.invalidBytes(.japaneseEUC)) {
            try CharsetDecoding.decoding(Data([0x41, 0x1B, 0x28, 0x42]), charset: "EUC-JP")
        }
        #expect(throws: CharsetDecoding.Failure.invalidBytes(.utf16BigEndian)) {
            try CharsetDecoding.decoding(Data([0x00, 0x41, 0x00]), charset: "utf-16be")
        }
        #expect(throws: CharsetDecoding.Failure.invalidBytes(.utf16LittleEndian)) {
            try CharsetDecoding.decoding(Data([0x00, 0xD8, 0x41, 0x00]), charset: "utf-16le")
        }
        #expect(throws: CharsetDecoding.Failure.invalidBytes(.utf32)) {
            try CharsetDecoding.decoding(Data([0x00, 0x00, 0x41]), charset: "utf-32")
        }
        #expect(throws: CharsetDecoding.Failure.invalidBytes(.windowsCP1252)) {
            try CharsetDecoding.decoding(Data([0x41, 0x81]), charset: "windows-1252")
        }
        #expect(throws: CharsetDecoding.Failure.invalidBytes(.utf8)) {
            try CharsetDecoding.decoding(Data([0x63, 0xE9]), charset: nil)
        }
    }

    @Test func byteOrderMarksAndTheDefaultEncoding() throws {
        // A byte order mark decides even when the charset is unsupported.
        #expect(try CharsetDecoding.decoding(Data([0xEF, 0xBB, 0xBF, 0x68, 0x69]), charset: "klingon") == "hi")
        #expect(try CharsetDecoding.decoding(Data([0xFE, 0xFF, 0x00, 0x68]), charset: "iso-8859-1") == "h")
        // The default encoding applies when there is no charset, never for an unsupported one.
        #expect(try CharsetDecoding.decoding(Data([0x63, 0xE9]), charset: nil, defaultEncoding: .isoLatin1) == "cé")
        #expect(try CharsetDecoding.decoding(Data([0xA4, 0xA2]), charset: nil, defaultEncoding: .japaneseEUC) == "あ")
        #expect(throws: CharsetDecoding.Failure.unsupportedCharset("unknown")) {
            try CharsetDecoding.decoding(Data([0x63, 0xE9]), charset: "unknown", defaultEncoding: .isoLatin1)
        }
    }

    @Test func lookupsFromManyTasksAgree() async {
        let names = ["latin2", "KOI8-R", "Shift_JIS", "GB18030", "cyrillic", "klingon", "EUC-JP", "csUTF16"]
        let expected = names.map { CharsetDecoding.encoding(forCharset: $0) }
        let results = await withTaskGroup(of: [String.Encoding?].self) { group in
            for _ in 0..<16 { group.addTask { (0..<50).flatMap { _ in names.map { CharsetDecoding.encoding(forCharset: $0) } } } }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results.count == 16)
        for result in results { #expect(result == Array((0..<50).flatMap { _ in expected })) }
    }

    // MARK: The string serializer and the operation

    @Test func stringSerializerThrowsATypedErrorForAnUnsupportedCharset() throws {
        let response = try #require(Support.response(contentType: "text/plain; charset=klingon"))
        let body = Data("Qapla'".utf8)
        let serializer = HTTPResponseSerializer()
        serializer.stringEncoding = .isoLatin1
        do {
            _ = try serializer.string(for: response, data: body)
            Issue.record("an unsupported charset was decoded")
        } catch let error as ResponseSerializationError {
            guard case .unsupportedCharset(let name, let carried, let data) = error else {
                Issue.record("unexpected \(error)"); return
            }
            #expect(name == "klingon")
            #expect(carried === response)
            #expect(data == body)
            #expect(error.response === response && error.data == body)
            #expect(error.description.contains("\"klingon\""))
        }
        // JSON bodies go through the same decoding.
        let json = try #require(Support.response(contentType: "application/json; charset=klingon"))
        #expect {
            try JSONResponseSerializer().responseObject(for: json, data: Data("[1]".utf8))
        } throws: { error in
            guard case .unsupportedCharset("klingon", _, _)? = error as? ResponseSerializationError else { return false }
            return true
        }
    }

    @Test func stringSerializerDecodesRegistryCharsets() throws {
        let koi8 = try #require(Support.response(contentType: "text/plain; charset=csKOI8R"))
        #expect(try HTTPResponseSerializer().string(for: koi8, data: Data([0xF0, 0xD2, 0xC9, 0xD7, 0xC5, 0xD4])) == "Привет")
        let eucJP = try #require(Support.response(contentType: "application/json; charset=\"EUC-JP\""))
        let object = try JSONResponseSerializer().responseObject(for: eucJP, data: Data([0x5B, 0x22, 0xC6, 0xFC, 0x22, 0x5D]))
        #expect(object as? [String] == ["日"])
    }

    @Test func undecodableTextNamesTheCharset() throws {
        let response = try #require(Support.response(contentType: "text/plain; charset=Shift_JIS"))
        do {
            _ = try HTTPResponseSerializer().string(for: response, data: Data([0x93]))
            Issue.record("a truncated Shift_JIS body was decoded")
        } catch let error as ResponseSerializationError {
            guard case .undecodableText(let encoding, _, let data) = error else { Issue.record("unexpected \(error)"); return }
            #expect(CharsetDecoding.charsetName(for: encoding) == "shift_jis")
            #expect(data == Data([0x93]))
            #expect(error.description.contains("shift_jis"))
        }
    }

    /// An archived operation (see OperationCompletionTests.responseString) with `body` and a Content-Type.
    private func finishedOperation(contentType: String, body: Data) throws -> URLConnectionOperation {
        let archive = """
        {"version":1,"request":{"url":"http://127.0.0.1/x","headers":{},"timeoutInterval":60},"state":"finished",\
        "totalBytesRead":\(body.count),"responseData":"\(body.base64EncodedString())","response":{"statusCode":200,\
        "headers":{"Content-Type":"\(contentType)"},"url":"http://127.0.0.1/x"}}
        """
        return try JSONDecoder().decode(URLConnectionOperation.self, from: Data(archive.utf8))
    }

    @Test func operationResponseStringFollowsRegistryCharsets() throws {
        let operation = try finishedOperation(contentType: "text/plain; charset=cyrillic", body: Data([0xBF, 0xE0, 0xD8]))
        #expect(operation.responseString == "При")
        #expect(try operation.decodeResponseString() == "При")
        #expect(operation.responseStringEncoding == CharsetDecoding.encoding(forCharset: "ISO-8859-5"))
        let windows = try finishedOperation(contentType: "text/plain; charset=cp1251", body: Data([0xCF]))
        #expect(windows.responseStringEncoding == .windowsCP1251)
        #expect(windows.responseString == "П")
    }

    @Test func operationResponseStringIsNilForAnUnsupportedCharsetAndSaysWhy() throws {
        let operation = try finishedOperation(contentType: "text/plain; charset=klingon", body: Data("Qapla'".utf8))
        #expect(operation.responseString == nil)
        #expect(operation.responseStringEncoding == .utf8)
        #expect {
            try operation.decodeResponseString()
        } throws: { error in
            guard case .unsupportedCharset("klingon", let response, _)? = error as? ResponseSerializationError else { return false }
            return response != nil
        }
        let invalid = try finishedOperation(contentType: "text/plain; charset=utf-8", body: Data([0xE9]))
        #expect(invalid.responseString == nil)
        #expect(throws: ResponseSerializationError.self) { try invalid.decodeResponseString() }
    }
}
