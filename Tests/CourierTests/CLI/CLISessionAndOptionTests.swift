import Courier
import Foundation
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `courier --session` (cookies and a credential carried into a later run, mode 0600, read-only use) and the
/// authentication options, end to end with the built binary against httpbin.
@Suite(
    "courier sessions and authentication options (httpbin)",
    .enabled(ExternalServers.httpbin.skipMessage) { await HTTPBinServer.isRunning() }
)
struct CLISessionTests {
    static func courier(_ arguments: [String]) async throws -> ChildProcess.Outcome {
        try await CLIPipeTests.courier(arguments)
    }

    static func url(_ path: String) throws -> String {
        try CLIPipeTests.url(path)
    }

    @Test func aSessionCarriesCookiesACredentialAndHeadersIntoTheNextRun() async throws {
        let file = Fixtures.temporaryFile("cli-session-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: file) }
        let first = try await Self.courier([
            "get", "--session", file.path, "-u", "ann:pa55", "-H", "X-Team: blue", try Self.url("/cookies/set?flavour=oat"),
        ])
        #expect(first.status == 0, "\(first.standardError)")
        let mode = try #require(try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? NSNumber)
        #expect(mode.intValue & 0o777 == 0o600)

        let cookies = try await Self.courier(["get", "--session", file.path, try Self.url("/cookies")])
        #expect((try CLIRequestTests.json(cookies)["cookies"] as? [String: String])?["flavour"] == "oat", "\(cookies.standardOutput)")
        let headers = try await Self.courier(["get", "--session", file.path, try Self.url("/headers")])
        #expect((try CLIRequestTests.json(headers)["headers"] as? [String: String])?["X-Team"] == "blue")
        let authenticated = try await Self.courier(["get", "--check-status", "--session", file.path, try Self.url("/basic-auth/ann/pa55")])
        #expect(authenticated.status == 0, "the session's credential answered the challenge: \(authenticated.standardError)")
    }

    /// A session file used for another origin (here `localhost` instead of `127.0.0.1`, the same server) sends its
    /// cookies as the jar allows and neither its credential nor its header fields; `Name:value` items are kept as
    /// `-H` fields are.
    @Test func aSessionsCredentialAndFieldsStayWithItsOrigin() async throws {
        let file = Fixtures.temporaryFile("cli-session-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: file) }
        let url = try Self.url("/headers")
        let first = try await Self.courier(["get", "--session", file.path, "--auth-type", "basic", "-u", "ann:pa55", "-H", "X-Team: blue", url, "X-Item:green"])
        #expect(first.status == 0, "\(first.standardError)")

        let elsewhere = try #require(URL(string: url)?.absoluteString.replacingOccurrences(of: "://127.0.0.1:", with: "://localhost:"))
        #expect(elsewhere != url)
        let other = try await Self.courier(["get", "--session", file.path, elsewhere])
        #expect(other.status == 0, "\(other.standardError)")
        let sent = try #require(try CLIRequestTests.json(other)["headers"] as? [String: String])
        #expect(sent["Authorization"] == nil && sent["X-Team"] == nil && sent["X-Item"] == nil, "\(sent)")
        #expect(other.standardError.contains("its credential and header fields are not sent to http://localhost:"), "\(other.standardError)")

        let again = try await Self.courier(["get", "--session", file.path, url])
        let resent = try #require(try CLIRequestTests.json(again)["headers"] as? [String: String])
        #expect(resent["X-Team"] == "blue" && resent["X-Item"] == "green", "\(resent)")
        #expect(resent["Authorization"] == "Basic " + Data("ann:pa55".utf8).base64EncodedString())
    }

    /// A redirect from the session's origin to another (here `localhost`, the same httpbin) leaves the session's
    /// header fields behind, as its credential: an API key kept in a session is a credential. A field given with `-H`
    /// on the command line follows curl's rule and goes on (only `Authorization` and `Cookie` stay behind). The same
    /// for `get`, `download` and `batch`.
    @Test func aSessionsFieldsStayBehindWhenARedirectLeavesItsOrigin() async throws {
        let folder = try Fixtures.temporaryDirectory("cli-session-redirect")
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("session.json").path
        let made = try await Self.courier(["get", "--session", file, "-H", "X-Api-Key: s3cret", try Self.url("/headers")])
        #expect(made.status == 0, "\(made.standardError)")

        let target = try #require(URL(string: try Self.url("/headers"))?.absoluteString.replacingOccurrences(of: "://127.0.0.1:", with: "://localhost:"))
        var redirect = try #require(URLComponents(string: try Self.url("/redirect-to")))
        redirect.queryItems = [URLQueryItem(name: "url", value: target)]
        let hop = try #require(redirect.url?.absoluteString)
        let sameOrigin = try #require(URLComponents(string: try Self.url("/redirect-to")).flatMap { components -> URL? in
            var components = components
            components.queryItems = [URLQueryItem(name: "url", value: try? Self.url("/headers"))]
            return components.url
        })

        let get = try await Self.courier(["get", "--session-read-only", file, "-H", "X-Given: 1", hop])
        #expect(get.status == 0, "\(get.standardError)")
        let sent = try #require(try CLIRequestTests.json(get)["headers"] as? [String: String])
        #expect(sent["X-Api-Key"] == nil, "the session's field followed the redirect to another origin: \(sent)")
        #expect(sent["X-Given"] == "1", "a -H field follows curl's rule: \(sent)")
        let kept = try await Self.courier(["get", "--session-read-only", file, sameOrigin.absoluteString])
        #expect((try CLIRequestTests.json(kept)["headers"] as? [String: String])?["X-Api-Key"] == "s3cret", "within the origin it goes on")

        let downloaded = folder.appendingPathComponent("download.json")
        let download = try await Self.courier(["download", "--session-read-only", file, "-o", downloaded.path, hop])
        #expect(download.status == 0, "\(download.standardError)")
        let downloadHeaders = try SessionFixtures.json(try Data(contentsOf: downloaded))["headers"] as? [String: String]
        #expect(downloadHeaders?["X-Api-Key"] == nil, "\(downloadHeaders ?? [:])")

        let list = folder.appendingPathComponent("list.txt")
        try Data("\(hop)\tbatch.json\n".utf8).write(to: list)
        let batch = try await Self.courier(["batch", list.path, "--output-dir", folder.path, "--session-read-only", file])
        #expect(batch.status == 0, "\(batch.standardOutput)\(batch.standardError)")
        let batchHeaders = try SessionFixtures.json(try Data(contentsOf: folder.appendingPathComponent("batch.json")))["headers"] as? [String: String]
        #expect(batchHeaders?["X-Api-Key"] == nil, "\(batchHeaders ?? [:])")
        #expect(batchHeaders?["Host"]?.hasPrefix("localhost") == true, "the batch followed the redirect: \(batchHeaders ?? [:])")
    }

    /// `download` and `batch` take `--session` as requests do: its cookies and credential go with them, and the
    /// cookies they receive are kept.
    @Test func downloadsAndBatchesUseAndKeepTheSession() async throws {
        let folder = try Fixtures.temporaryDirectory("cli-session-download")
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("session.json").path
        let first = try await Self.courier(["get", "--session", file, "-u", "ann:pa55", "-H", "X-Team: blue", try Self.url("/cookies/set?flavour=oat")])
        #expect(first.status == 0, "\(first.standardError)")

        let cookies = folder.appendingPathComponent("cookies.json")
        let download = try await Self.courier(["download", "--session", file, "-o", cookies.path, try Self.url("/cookies/set?topping=fig")])
        #expect(download.status == 0, "\(download.standardError)")
        #expect((try SessionFixtures.json(try Data(contentsOf: cookies))["cookies"] as? [String: String]) == ["flavour": "oat", "topping": "fig"])
        let secret = folder.appendingPathComponent("secret.json")
        let authenticated = try await Self.courier(["download", "--session", file, "-o", secret.path, try Self.url("/basic-auth/ann/pa55")])
        #expect(authenticated.status == 0, "the session's credential answered the download's challenge: \(authenticated.standardError)")

        let list = folder.appendingPathComponent("list.txt")
        try Data("\(try Self.url("/cookies"))\tjar.json\n\(try Self.url("/basic-auth/ann/pa55"))\tauth.json\n\(try Self.url("/headers"))\thead.json\n".utf8)
            .write(to: list)
        let batch = try await Self.courier(["batch", list.path, "--output-dir", folder.path, "--session-read-only", file])
        #expect(batch.status == 0, "\(batch.standardOutput)\(batch.standardError)")
        let jar = try SessionFixtures.json(try Data(contentsOf: folder.appendingPathComponent("jar.json")))
        #expect((jar["cookies"] as? [String: String]) == ["flavour": "oat", "topping": "fig"], "the download's cookie was kept: \(jar)")
        let head = try SessionFixtures.json(try Data(contentsOf: folder.appendingPathComponent("head.json")))
        #expect((head["headers"] as? [String: String])?["X-Team"] == "blue", "\(head)")

        let without = try await Self.courier(["download", "-o", folder.appendingPathComponent("none.json").path, try Self.url("/basic-auth/ann/pa55")])
        #expect(without.status == 3, "without the session there is no credential: \(without.standardError)")
    }

    @Test func aReadOnlySessionIsNotWritten() async throws {
        let file = Fixtures.temporaryFile("cli-session-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: file) }
        _ = try await Self.courier(["get", "--session", file.path, try Self.url("/cookies/set?a=1")])
        let before = try Data(contentsOf: file)
        let readOnly = try await Self.courier(["get", "--session-read-only", file.path, try Self.url("/cookies/set?b=2")])
        #expect(readOnly.status == 0, "\(readOnly.standardError)")
        #expect((try CLIRequestTests.json(readOnly)["cookies"] as? [String: String]) == ["a": "1", "b": "2"])
        #expect(try Data(contentsOf: file) == before)
    }

    @Test func aFileThatIsNotASessionIsRefused() async throws {
        let file = Fixtures.temporaryFile("cli-session-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data("{\"format\": \"something-else\"}".utf8).write(to: file)
        let outcome = try await Self.courier(["get", "--session", file.path, try Self.url("/get")])
        #expect(outcome.status == 2)
        #expect(outcome.standardError.contains("is not a Courier session file"))
    }

    @Test func authTypeBasicAndBearerSendTheirFieldAtOnce() async throws {
        let basic = try await Self.courier(["get", "--auth-type", "basic", "-u", "ann:pa55", try Self.url("/headers")])
        let sent = (try CLIRequestTests.json(basic)["headers"] as? [String: String])?["Authorization"]
        #expect(sent == "Basic " + Data("ann:pa55".utf8).base64EncodedString())
        let bearer = try await Self.courier(["get", "--check-status", "--auth-type", "bearer", "-u", "tok-1", try Self.url("/bearer")])
        #expect(bearer.status == 0, "\(bearer.standardError)")
        #expect(try CLIRequestTests.json(bearer)["token"] as? String == "tok-1")
    }

    /// `--auth-type digest` answers Digest challenges only: a Basic challenge gets no answer (the password would go
    /// out merely Base64-encoded), in requests, downloads and batches alike.
    @Test func authTypeDigestNeverAnswersABasicChallenge() async throws {
        let basic = try await Self.courier(["get", "--check-status", "-p", "h", "--auth-type", "digest", "-u", "ann:pa55", try Self.url("/basic-auth/ann/pa55")])
        #expect(basic.status == 3, "\(basic.standardError)")
        #expect(basic.standardOutput.hasPrefix("HTTP/1.1 401"), "\(basic.standardOutput)")
        let digest = try await Self.courier(["get", "--check-status", "-p", "h", "--auth-type", "digest", "-u", "ann:pa55", try Self.url("/digest-auth/auth/ann/pa55")])
        #expect(digest.status == 0, "\(digest.standardError)")
        #expect(digest.standardOutput.hasPrefix("HTTP/1.1 200"), "\(digest.standardOutput)")

        let folder = try Fixtures.temporaryDirectory("digest-only")
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = folder.appendingPathComponent("basic.json").path
        let download = try await Self.courier(["download", "--auth-type", "digest", "-u", "ann:pa55", "-o", output, try Self.url("/basic-auth/ann/pa55")])
        #expect(download.status == 3, "\(download.standardError)")
        let list = folder.appendingPathComponent("list.txt")
        try Data("\(try Self.url("/basic-auth/ann/pa55"))\tbasic.json\n\(try Self.url("/digest-auth/auth/ann/pa55"))\tdigest.json\n".utf8).write(to: list)
        let batch = try await Self.courier(["batch", list.path, "--output-dir", folder.path, "--auth-type", "digest", "-u", "ann:pa55"])
        #expect(batch.status != 0, "\(batch.standardOutput)")
        #expect(batch.standardOutput.contains("HTTP 401"), "\(batch.standardOutput)")
        #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("digest.json").path), "\(batch.standardOutput)")
    }

    @Test func withoutAPasswordAndWithoutATerminalTheUserIsToldWhatToWrite() async throws {
        let outcome = try await ChildProcess.run("courier", ["get", "-u", "ann", try Self.url("/basic-auth/ann/x")], launcher: .withoutTerminal)
        #expect(outcome.status == 2)
        #expect(outcome.standardError.contains("no terminal to ask for it on"), "\(outcome.standardError)")
        #expect(outcome.standardError.split(separator: "\n").count == 1, "\(outcome.standardError)")
    }

    /// As curl does, the prompt is on the terminal even when standard input is a pipe (here the body of a POST).
    @Test func aPasswordIsAskedForOnTheTerminalWhenStandardInputIsAPipe() async throws {
        let outcome = try await PseudoTerminal.courier(
            ["post", "--check-status", "-p", "hb", "--auth-type", "basic", "-u", "ann", try Self.url("/anything")],
            standardInput: "{\"piped\": true}", prompt: "password for ann: ", answer: "s3cret-pass"
        )
        #expect(outcome.status == 0, "\(outcome.shown)")
        #expect(outcome.shown.contains("piped"), "the piped body was sent: \(outcome.shown)")
        #expect(outcome.shown.contains("Basic " + Data("ann:s3cret-pass".utf8).base64EncodedString()), "\(outcome.shown)")
        #expect(!outcome.shown.contains("s3cret-pass"), "the password was echoed: \(outcome.shown)")
    }

    @Test func aPasswordIsAskedForOnAPseudoTerminalWithoutEcho() async throws {
        let outcome = try await PseudoTerminal.courier(
            ["get", "--check-status", "-p", "h", "-u", "ann", try Self.url("/basic-auth/ann/s3cret-pass")],
            prompt: "password for ann: ", answer: "s3cret-pass"
        )
        #expect(outcome.status == 0, "\(outcome.shown)")
        #expect(outcome.shown.contains("HTTP/1.1 200 OK"), "\(outcome.shown)")
        #expect(!outcome.shown.contains("s3cret-pass"), "the password was echoed: \(outcome.shown)")
    }

    @Test func ctrlCAtThePasswordPromptEndsWithTheTerminalEchoingAgain() async throws {
        let outcome = try await PseudoTerminal.courier(
            ["get", "-u", "ann", try Self.url("/basic-auth/ann/s3cret-pass")],
            prompt: "password for ann: ", answer: "\u{03}", afterwards: "stty -a"
        )
        #expect(outcome.shown.contains("exit=130"), "\(outcome.shown.debugDescription)")
        let settings = outcome.shown.components(separatedBy: .whitespacesAndNewlines)
        #expect(settings.contains("echo") && !settings.contains("-echo"), "echo stayed off: \(outcome.shown)")
        #expect(settings.contains("isig") && !settings.contains("-isig"), "\(outcome.shown)")
    }

    @Test func aTerminalGetsColoursUnlessNoColorOrPrettyNone() async throws {
        let url = try Self.url("/json")
        let coloured = try await PseudoTerminal.courier(["get", url])
        #expect(coloured.status == 0, "\(coloured.shown)")
        #expect(coloured.shown.contains("\u{1B}[1m\u{1B}[32mHTTP/1.1 200 OK"), "a green status line: \(coloured.shown.debugDescription)")
        #expect(coloured.shown.contains("\u{1B}[34m\"slideshow\""), "a blue key")
        let plainByVariable = try await PseudoTerminal.courier(["get", url], environment: ["NO_COLOR": "1"])
        #expect(!plainByVariable.shown.contains("\u{1B}["), "\(plainByVariable.shown.debugDescription)")
        #expect(plainByVariable.shown.contains("\"slideshow\""))
        let plainByOption = try await PseudoTerminal.courier(["get", "--pretty", "none", url])
        #expect(!plainByOption.shown.contains("\u{1B}["))
    }
}

/// `download` with the request options against nginx's TLS, and the HTTP version options.
@Suite(
    "courier download and request options (nginx)",
    .enabled(NginxServer.skipMessage) { await NginxInterop.isRunning() }
)
struct CLINginxOptionTests {
    @Test func downloadTakesHeadersAndTheCertificateAuthority() async throws {
        let probe = UUID().uuidString
        let url = try NginxInterop.url("hello.txt", probe: probe).absoluteString
        let ca = try #require(NginxServer.certificateAuthorityPath)
        let file = Fixtures.temporaryFile("cli-download-\(probe).txt")
        defer { try? FileManager.default.removeItem(at: file) }
        let refused = try await CLIPipeTests.courier(["download", url, "-o", file.path])
        #expect(refused.status == 4, "nginx's CA is not trusted without --cacert: \(refused.standardError)")
        // Said in words, with what to do, and without BoringSSL's internals.
        #expect(refused.standardError.contains("its chain does not lead to a certificate authority this client trusts"), "\(refused.standardError)")
        #expect(refused.standardError.contains("--cacert FILE"), "\(refused.standardError)")
        for detail in ["OPENSSL_internal", "CNIOBoringSSL", ".build/", "sslError", "error:1000"] {
            #expect(!refused.standardError.contains(detail), "\(detail) in \(refused.standardError)")
        }
        // Another address of the same server: the chain is trusted, the name is not the certificate's.
        let port = try #require(NginxServer.environment["COURIER_NGINX_PORT"])
        let otherName = try await CLIPipeTests.courier(["get", "https://127.0.0.2:\(port)/hello.txt", "--cacert", ca])
        #expect(otherName.status == 4, "\(otherName.standardError)")
        #expect(otherName.standardError.contains("is not valid for 127.0.0.2 (it names localhost, 127.0.0.1)"), "\(otherName.standardError)")
        #expect(!otherName.standardError.contains("chain is not trusted"), "\(otherName.standardError)")
        #expect(otherName.standardError.contains("hint: use the host name the certificate names"), "\(otherName.standardError)")

        let outcome = try await CLIPipeTests.courier([
            "download", url, "-o", file.path, "--cacert", ca, "-H", "If-None-Match: \"courier-\(probe)\"",
        ])
        #expect(outcome.status == 0, "\(outcome.standardError)")
        #expect(try Data(contentsOf: file) == (try Data(contentsOf: try NginxInterop.servedFile("hello.txt"))))
        let line = try #require(try await NginxInterop.accessLog(probe: probe, count: 1).first)
        #expect(line.description.contains("courier-\(probe)"), "the -H field reached nginx: \(line)")
    }

    @Test func continueTakesOverAPartialFileLikeCurlDashCDash() async throws {
        let probe = UUID().uuidString
        let url = try NginxInterop.url("bytes-1m.bin", probe: probe).absoluteString
        let ca = try #require(NginxServer.certificateAuthorityPath)
        let whole = try Data(contentsOf: try NginxInterop.servedFile("bytes-1m.bin"))
        let file = Fixtures.temporaryFile("cli-continue-\(probe).bin")
        defer { try? FileManager.default.removeItem(at: file) }
        try whole.prefix(300_000).write(to: file)
        let outcome = try await CLIPipeTests.courier(["download", url, "-o", file.path, "--continue", "--cacert", ca])
        #expect(outcome.status == 0, "\(outcome.standardError)")
        #expect(try Data(contentsOf: file) == whole)
        // nginx sends no digest: the kept bytes cannot be proven, and the user is told.
        #expect(outcome.standardError.contains("the first 300000 bytes were kept unchecked"), "\(outcome.standardError)")
        let line = try #require(try await NginxInterop.accessLog(probe: probe, count: 1).first)
        #expect(line.status == 206, "\(line)")
        #expect(line.range == "bytes=300000-" && line.ifRange == nil, "\(line)")
        #expect(line.bytesSent < 1_048_576, "only the rest was sent: \(line)")
    }

    @Test func http1OnlyIsSpokenWhenAsked() async throws {
        let ca = try #require(NginxServer.certificateAuthorityPath)
        let url = try NginxInterop.url("hello.txt").absoluteString
        let automatic = try await CLIPipeTests.courier(["get", "-p", "h", "--cacert", ca, url])
        #expect(automatic.standardOutput.hasPrefix("HTTP/2 200"), "\(automatic.standardOutput) \(automatic.standardError)")
        let http1 = try await CLIPipeTests.courier(["get", "-p", "h", "--http1.1", "--cacert", ca, url])
        #expect(http1.standardOutput.hasPrefix("HTTP/1.1 200"), "\(http1.standardOutput) \(http1.standardError)")
    }
}
