import Courier
import Foundation
import Testing
@testable import courier
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `.netrc` files as curl reads them: the format's tokens, and the credential they give a host.
@Suite("courier: netrc files read as curl reads them")
struct NetrcFileTests {
    @Test func entriesCommentsQuotesAndMacros() throws {
        let file = try NetrcFile(parsing: """
            # a comment line
            machine Example.COM login ann password pa55   # a trailing comment
            macdef init
            cd /pub
            binary

            machine other.test
                login "bob smith"
                password "with \\"quotes\\" and\\tspace"
                account ignored
            default login anonymous password guest@
            """)
        #expect(file.credential(forHost: "example.com").map { [$0.user, $0.password] } == ["ann", "pa55"])
        #expect(file.credential(forHost: "OTHER.test").map { [$0.user, $0.password] } == ["bob smith", "with \"quotes\" and\tspace"])
        #expect(file.credential(forHost: "elsewhere.test").map { [$0.user, $0.password] } == ["anonymous", "guest@"])
    }

    @Test func withoutADefaultAnUnlistedHostHasNone() throws {
        let file = try NetrcFile(parsing: "machine a.test login x\nmachine b.test password only")
        #expect(file.credential(forHost: "a.test").map { [$0.user, $0.password] } == ["x", ""], "no password: an empty one, as curl")
        #expect(file.credential(forHost: "b.test") == nil, "no login: no credential")
        #expect(file.credential(forHost: "c.test") == nil)
    }

    @Test("what cannot be read is an error naming its line", arguments: [
        ("machine", 1, "machine without a host name"),
        ("login ann", 1, "login before any machine or default"),
        ("machine a\n\n  login", 3, "login without a value"),
        ("machine a login \"ann", 1, "a quoted value without its closing quote"),
        ("machine a\nuser ann", 2, "unknown keyword \"user\""),
        ("macdef", 1, "macdef without a name"),
    ])
    func syntaxErrors(text: String, line: Int, problem: String) {
        #expect {
            try NetrcFile(parsing: text)
        } throws: { error in
            guard let error = error as? NetrcFile.SyntaxError else { return false }
            return error.line == line && error.problem.hasPrefix(problem)
        }
    }
}

/// `--netrc`, `--netrc-file` and `--netrc-optional` end to end with the built binary against httpbin.
@Suite(
    "courier --netrc (httpbin)",
    .enabled(ExternalServers.httpbin.skipMessage) { await HTTPBinServer.isRunning() }
)
struct CLINetrcTests {
    private static func netrc(_ text: String) throws -> URL {
        let file = Fixtures.temporaryFile("netrc-\(UUID().uuidString)")
        try Data(text.utf8).write(to: file)
        return file
    }

    @Test func theHostsEntryAnswersBasicAndDigestChallenges() async throws {
        let file = try Self.netrc("machine elsewhere.test login x password y\nmachine 127.0.0.1 login ann password pa55\n")
        defer { try? FileManager.default.removeItem(at: file) }
        let basic = try await CLIPipeTests.courier(["get", "--check-status", "--netrc-file", file.path, try CLIPipeTests.url("/basic-auth/ann/pa55")])
        #expect(basic.status == 0, "\(basic.standardError)")
        let digest = try await CLIPipeTests.courier(["get", "--check-status", "--netrc-file", file.path, try CLIPipeTests.url("/digest-auth/auth/ann/pa55")])
        #expect(digest.status == 0, "\(digest.standardError)")
        // -u wins over the file.
        let given = try await CLIPipeTests.courier(["get", "--check-status", "--netrc-file", file.path, "-u", "ann:wrong", try CLIPipeTests.url("/basic-auth/ann/pa55")])
        #expect(given.status == 3, "\(given.standardError)")
        // Without the option the file is not read.
        let without = try await CLIPipeTests.courier(["get", "--check-status", try CLIPipeTests.url("/basic-auth/ann/pa55")])
        #expect(without.status == 3)
    }

    @Test func netrcReadsTheNETRCVariableAndAnotherHostGetsNothing() async throws {
        let file = try Self.netrc("machine localhost login ann password pa55\n")
        defer { try? FileManager.default.removeItem(at: file) }
        let url = try CLIPipeTests.url("/basic-auth/ann/pa55")
        let local = url.replacingOccurrences(of: "://127.0.0.1:", with: "://localhost:")
        let matched = try await ChildProcess.run("courier", ["get", "--check-status", "--netrc", local], environment: ["NETRC": file.path])
        #expect(matched.status == 0, "\(matched.standardError)")
        let unmatched = try await ChildProcess.run("courier", ["get", "--check-status", "--netrc", url], environment: ["NETRC": file.path])
        #expect(unmatched.status == 3, "127.0.0.1 has no entry and there is no default: \(unmatched.standardError)")
    }

    @Test func aMissingFileIsAnErrorUnlessOptionalAndABadOneNamesItsLine() async throws {
        let missing = Fixtures.temporaryFile("netrc-missing-\(UUID().uuidString)").path
        let url = try CLIPipeTests.url("/get")
        let required = try await ChildProcess.run("courier", ["get", "--netrc", url], environment: ["NETRC": missing])
        #expect(required.status == 2 && required.standardError.contains("cannot read the netrc file \(missing)"), "\(required.standardError)")
        let optional = try await ChildProcess.run("courier", ["get", "--netrc-optional", url], environment: ["NETRC": missing])
        #expect(optional.status == 0, "\(optional.standardError)")

        let bad = try Self.netrc("machine 127.0.0.1\n  user ann\n")
        defer { try? FileManager.default.removeItem(at: bad) }
        let broken = try await CLIPipeTests.courier(["get", "--netrc-file", bad.path, url])
        #expect(broken.status == 2 && broken.standardError.contains("line 2: unknown keyword \"user\""), "\(broken.standardError)")
    }
}
