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

    @Test func withoutAPasswordAndWithoutATerminalTheUserIsToldWhatToWrite() async throws {
        let outcome = try await Self.courier(["get", "-u", "ann", try Self.url("/basic-auth/ann/x")])
        #expect(outcome.status == 2)
        #expect(outcome.standardError.contains("no terminal to ask for it on"), "\(outcome.standardError)")
    }

    @Test func aPasswordIsAskedForOnAPseudoTerminalWithoutEcho() async throws {
        let courier = try ChildProcess.executable("courier").path
        // Python's pty module gives courier a terminal, answers the prompt and reports what the terminal showed.
        let script = """
        import os, pty, sys
        pid, fd = pty.fork()
        if pid == 0:
            os.execv(sys.argv[1], [sys.argv[1], "get", "--check-status", "-p", "h", "-u", "ann", sys.argv[2]])
        seen = b""
        while b"password for ann: " not in seen:
            seen += os.read(fd, 1024)
        os.write(fd, b"s3cret-pass\\n")
        while True:
            try:
                chunk = os.read(fd, 1024)
            except OSError:
                break
            if not chunk:
                break
            seen += chunk
        _, status = os.waitpid(pid, 0)
        sys.stdout.write(seen.decode(errors="replace"))
        sys.exit(os.waitstatus_to_exitcode(status))
        """
        let scriptFile = Fixtures.temporaryFile("cli-pty-\(UUID().uuidString).py")
        defer { try? FileManager.default.removeItem(at: scriptFile) }
        try Data(script.utf8).write(to: scriptFile)
        let url = try Self.url("/basic-auth/ann/s3cret-pass")
        let outcome = try await ShellCommand.run("python3 '\(scriptFile.path)' '\(courier)' '\(url)'", timeout: .seconds(30))
        let shown = String(decoding: outcome.standardOutput, as: UTF8.self)
        #expect(outcome.status == 0, "\(shown) \(outcome.standardError)")
        #expect(shown.contains("HTTP/1.1 200 OK"), "\(shown)")
        #expect(!shown.contains("s3cret-pass"), "the password was echoed: \(shown)")
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

        let outcome = try await CLIPipeTests.courier([
            "download", url, "-o", file.path, "--cacert", ca, "-H", "If-None-Match: \"courier-\(probe)\"",
        ])
        #expect(outcome.status == 0, "\(outcome.standardError)")
        #expect(try Data(contentsOf: file) == (try Data(contentsOf: try NginxInterop.servedFile("hello.txt"))))
        let line = try #require(try await NginxInterop.accessLog(probe: probe, count: 1).first)
        #expect(line.description.contains("courier-\(probe)"), "the -H field reached nginx: \(line)")
    }

    @Test func http1OnlyIsSpokenWhenAsked() async throws {
        let ca = try #require(NginxServer.certificateAuthorityPath)
        let url = try NginxInterop.url("hello.txt").absoluteString
        let automatic = try await CLIPipeTests.courier(["get", "-p", "h", "--cacert", ca, url])
        #expect(automatic.standardOutput.hasPrefix("HTTP/2.0 200"), "\(automatic.standardOutput) \(automatic.standardError)")
        let http1 = try await CLIPipeTests.courier(["get", "-p", "h", "--http1.1", "--cacert", ca, url])
        #expect(http1.standardOutput.hasPrefix("HTTP/1.1 200"), "\(http1.standardOutput) \(http1.standardError)")
    }
}
