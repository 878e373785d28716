import Foundation
import Testing
@testable import courier

/// A text body on a terminal is shown in the terminal's encoding, whatever charset the server wrote it in, and stays
/// raw bytes in a pipe; `--response-charset` and `--response-mime` override what the response says. Against nginx's
/// `charset` directive and the files Python's codecs wrote (Python's decoding is the reference).
@Suite(
    "courier: text bodies in the terminal's encoding (nginx, Python codecs)",
    .enabled(NginxServer.skipMessage) { await NginxInterop.isRunning() }
)
struct CLIResponseCharsetTests {
    private static func entry(_ path: String) throws -> CharsetInteropTests.Entry {
        try #require(try CharsetInteropTests.manifest().first { $0.path == path })
    }

    /// `courier get` with `options` for `url`, trusting nginx's test certificate authority.
    private static func get(_ options: [String], _ url: String) throws -> [String] {
        ["get", "--cacert", try #require(NginxServer.certificateAuthorityPath)] + options + [url]
    }

    /// A terminal that shows UTF-8, whatever locale the tests run in.
    private static let utf8Terminal = ["LC_ALL": "C.UTF-8"]

    /// What the terminal showed, its line ends as the program wrote them.
    private static func shown(_ outcome: PseudoTerminal.Outcome) -> String {
        outcome.shown.replacingOccurrences(of: "\r\n", with: "\n")
    }

    @Test func aKOI8RBodyIsReadableOnATerminalAndRawInAPipe() async throws {
        let koi8 = try Self.entry("charset/KOI8-R/every-byte.txt")
        let expected = try #require(koi8.expected)
        let url = try NginxInterop.url(koi8.path).absoluteString
        let terminal = try await PseudoTerminal.courier(try Self.get([], url), environment: Self.utf8Terminal)
        #expect(terminal.status == 0, "\(terminal.shown)")
        #expect(Self.shown(terminal).contains("\n\n" + expected), "\(terminal.shown.debugDescription)")

        let file = Fixtures.temporaryFile("cli-koi8-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        let piped = try await ChildProcess.run("courier", try Self.get([], url), standardOutput: file)
        #expect(piped.status == 0, "\(piped.standardError)")
        #expect(try Data(contentsOf: file) == Data(contentsOf: NginxInterop.servedFile(koi8.path)), "a pipe gets the server's bytes")
    }

    @Test func responseCharsetOverridesTheServersCharset() async throws {
        // The windows-1251 file's bytes read as KOI8-R: Python's KOI8-R reading of every byte, less the one
        // windows-1251 leaves out (0x98, the 120th of 0x20…0x7E, 0x80…0xFF).
        let cp1251 = try Self.entry("charset/cp1251/every-byte.txt")
        var koi8 = try #require(try Self.entry("charset/KOI8-R/every-byte.txt").expected)
        koi8.remove(at: koi8.index(koi8.startIndex, offsetBy: 0x7F - 0x20 + 0x98 - 0x80))
        let url = try NginxInterop.url(cp1251.path).absoluteString
        let overridden = try await PseudoTerminal.courier(try Self.get(["--response-charset", "koi8-r"], url), environment: Self.utf8Terminal)
        #expect(overridden.status == 0, "\(overridden.shown)")
        #expect(Self.shown(overridden).contains("\n\n" + koi8), "\(overridden.shown.debugDescription)")
        let asSent = try await PseudoTerminal.courier(try Self.get([], url), environment: Self.utf8Terminal)
        #expect(Self.shown(asSent).contains("\n\n" + (try #require(cp1251.expected))), "\(asSent.shown.debugDescription)")
    }

    @Test func responseMimeFormatsJSONSentAsText() async throws {
        let url = try NginxInterop.url("charset/manifest.json").absoluteString
        let text = try await ChildProcess.run("courier", try Self.get(["--pretty", "format", "--response-mime", "text/plain"], url))
        #expect(text.status == 0 && text.standardOutput.hasPrefix("[\n {\n  \"path\": "), "nginx's own bytes: \(text.standardOutput.prefix(80))")
        let json = try await ChildProcess.run("courier", try Self.get(["--pretty", "format", "--response-mime", "application/json"], url))
        #expect(json.status == 0 && json.standardOutput.hasPrefix("[\n  {\n    \"charset\" : "), "formatted as JSON, keys sorted: \(json.standardOutput.prefix(80))")
    }

    @Test func badOverridesAreUsageErrors() async throws {
        let url = try NginxInterop.url("charset/manifest.json").absoluteString
        let charset = try await ChildProcess.run("courier", try Self.get(["--response-charset", "klingon"], url))
        #expect(charset.status == 2 && charset.standardError.contains("--response-charset klingon"), "\(charset.standardError)")
        let mime = try await ChildProcess.run("courier", try Self.get(["--response-mime", "json"], url))
        #expect(mime.status == 2 && mime.standardError.contains("expected type/subtype"), "\(mime.standardError)")
    }
}

@Suite("courier: the terminal's encoding from the locale's variables")
struct TerminalEncodingTests {
    @Test func theLocalesCodesetIsTheEncodingAndCOrNoneIsUTF8() {
        #expect(TerminalEncoding.current(environment: [:]) == .utf8)
        #expect(TerminalEncoding.current(environment: ["LANG": "C"]) == .utf8)
        #expect(TerminalEncoding.current(environment: ["LANG": "en_US.UTF-8"]) == .utf8)
        #expect(TerminalEncoding.current(environment: ["LANG": "C.ANSI_X3.4-1968"]) == .utf8, "ASCII would lose every other character")
        #expect(TerminalEncoding.current(environment: ["LANG": "de_DE.ISO-8859-1@euro"]) == .isoLatin1)
        #expect(TerminalEncoding.current(environment: ["LANG": "en_US.UTF-8", "LC_CTYPE": "ru_RU.KOI8-R"])
                == TerminalEncoding.current(environment: ["LANG": "ru_RU.KOI8-R"]))
        #expect(TerminalEncoding.current(environment: ["LANG": "ru_RU.KOI8-R"]) != .utf8)
        #expect(TerminalEncoding.current(environment: ["LC_ALL": "en_US.UTF-8", "LC_CTYPE": "ru_RU.KOI8-R"]) == .utf8, "LC_ALL wins")
        #expect(TerminalEncoding.showsAsIs(.ascii, on: .isoLatin1) && !TerminalEncoding.showsAsIs(.isoLatin1, on: .utf8))
    }
}
