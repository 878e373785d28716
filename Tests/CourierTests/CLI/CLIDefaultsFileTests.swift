import Courier
import Foundation
import Testing
@testable import courier

/// Issue #36, item 8: the defaults file (`$XDG_CONFIG_HOME/courier/config`): its sections and words, where its
/// options go, and that the command line and the environment win over it.
@Suite("courier's defaults file", .timeLimit(.minutes(1)))
struct DefaultsFileTests {
    @Test func linesAreSplitAsAShellSplitsThem() {
        #expect(DefaultsFile.words(of: #"-H "X-Team: core" --timeout 10"#) == ["-H", "X-Team: core", "--timeout", "10"])
        #expect(DefaultsFile.words(of: #"-H 'A: "quoted"'  # a comment"#) == ["-H", #"A: "quoted""#])
        #expect(DefaultsFile.words(of: #"--proxy=http://h\ x "a\"b\\c\n""#) == ["--proxy=http://h x", #"a"b\c\n"#])
        #expect(DefaultsFile.words(of: #"-H "unclosed"#) == nil)
        #expect(DefaultsFile.words(of: "-H 'unclosed") == nil)
    }

    @Test func sectionsGoAfterTheirCommandsNameAndTheCommandLineComesLast() throws {
        let file = try DefaultsFile(parsing: """
            # mine
            [requests]
            --timeout 10 -H 'X-Team: core'
            [GET]
            --check-status
            [download]
            --split 4
            --proxy http://proxy.example:3128
            """)
        #expect(file.applied(to: ["get", "URL", "-H", "X-Team: cli"], environment: [:])
            == ["get", "--timeout", "10", "-H", "X-Team: core", "--check-status", "URL", "-H", "X-Team: cli"])
        #expect(file.applied(to: ["post", "URL"], environment: [:]) == ["post", "--timeout", "10", "-H", "X-Team: core", "URL"])
        #expect(file.applied(to: ["download", "URL"], environment: [:]) == ["download", "--split", "4", "--proxy", "http://proxy.example:3128", "URL"])
        // The environment's proxy wins over the file's.
        #expect(file.applied(to: ["download", "URL"], environment: ["https_proxy": "http://other:1"]) == ["download", "--split", "4", "URL"])
        // Commands without a section, and no command at all, are left alone.
        #expect(file.applied(to: ["queue", "list", "x"], environment: [:]) == ["queue", "list", "x"])
        #expect(file.applied(to: [], environment: [:]) == [])
    }

    @Test func aBadFileNamesItsLine() {
        for (text, line, reason) in [
            ("--timeout 5", 1, "under a [command] section"),
            ("[requests]\n\n[nope]", 3, "unknown section [nope]"),
            ("[download]\n--split 'x", 2, "not closed"),
            ("[download", 1, "[name]"),
        ] {
            #expect {
                _ = try DefaultsFile(parsing: text)
            } throws: { error in
                guard let malformed = error as? DefaultsFile.Malformed else { return false }
                return malformed.line == line && malformed.reason.contains(reason)
            }
        }
    }

    @Test func theFileIsFoundWhereTheEnvironmentSays() {
        #expect(DefaultsFile.location(environment: ["HOME": "/home/u"])?.path == "/home/u/.config/courier/config")
        #expect(DefaultsFile.location(environment: ["HOME": "/home/u", "XDG_CONFIG_HOME": "/x"])?.path == "/x/courier/config")
        #expect(DefaultsFile.location(environment: ["HOME": "/home/u", "COURIER_CONFIG": "/etc/c"])?.path == "/etc/c")
        #expect(DefaultsFile.location(environment: ["HOME": "/home/u", "COURIER_CONFIG": ""]) == nil)
    }
}

/// The defaults file in use, against httpbin, which echoes the header fields it got.
@Suite(
    "courier's defaults file (httpbin)",
    .enabled(ExternalServers.httpbin.skipMessage) { await HTTPBinServer.isRunning() }
)
struct CLIDefaultsFileTests {
    @Test func theFilesOptionsApplyAndTheCommandLineWins() async throws {
        let folder = Fixtures.temporaryFile("cli-defaults-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("courier"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try "[requests]\n-H 'X-From-Config: file' --check-status\n".write(to: folder.appendingPathComponent("courier/config"), atomically: true, encoding: .utf8)
        func courier(_ arguments: [String]) async throws -> ChildProcess.Outcome {
            // The file named by COURIER_CONFIG (where XDG_CONFIG_HOME leads is the table test's).
            try await ChildProcess.run("courier", arguments, environment: ["COURIER_CONFIG": folder.appendingPathComponent("courier/config").path])
        }

        let plain = try await courier(["get", "-p", "b", try CLIPipeTests.url("/headers")])
        #expect(try SessionFixtures.json(Data(plain.standardOutput.utf8))["headers"].flatMap { $0 as? [String: String] }?["X-From-Config"] == "file", "\(plain.standardOutput)")
        for override in [["-H", "X-From-Config: flag"], ["X-From-Config:item"]] {
            let given = try await courier(["get", "-p", "b", try CLIPipeTests.url("/headers")] + override)
            let sent = try SessionFixtures.json(Data(given.standardOutput.utf8))["headers"].flatMap { $0 as? [String: String] }
            #expect(sent?["X-From-Config"] == (override.count == 2 ? "flag" : "item"), "\(given.standardOutput)")
        }
        // --check-status from the file: a 404 is exit 3.
        let missing = try await courier(["get", try CLIPipeTests.url("/status/404")])
        #expect(missing.status == 3, "\(missing.standardError)")

        // An option the command does not take is a usage error that names the file.
        try "[batch]\n--split 2\n".write(to: folder.appendingPathComponent("courier/config"), atomically: true, encoding: .utf8)
        let batch = try await courier(["batch", "/dev/null"])
        #expect(batch.status == 2 && batch.standardError.contains("courier/config added --split 2"), "\(batch.standardError)")
        try "-H x\n".write(to: folder.appendingPathComponent("courier/config"), atomically: true, encoding: .utf8)
        let malformed = try await courier(["get", try CLIPipeTests.url("/get")])
        #expect(malformed.status == 2 && malformed.standardError.contains("config: line 1: options go under a [command] section"), "\(malformed.standardError)")
    }
}
