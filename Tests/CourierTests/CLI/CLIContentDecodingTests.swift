import Foundation
import Testing
@testable import Courier
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `courier get` against nginx's on-the-fly gzip: the body printed is the file, and `--verbose` shows the coding that
/// went over the wire; `courier download` asks for the resource's own bytes (so an interrupted download continues the
/// same representation).
@Suite(
    "CLI: content decoding against nginx",
    .enabled(NginxServer.skipMessage) { await NginxInterop.isRunning() }
)
struct CLIContentDecodingTests {
    @Test func getPrintsTheDecodedBodyAndVerboseShowsTheWireCoding() async throws {
        let ca = try #require(NginxServer.environment["COURIER_NGINX_CA"])
        let url = try NginxInterop.url("encoded/text.txt").absoluteString
        let outcome = try await CLIRequestTests.courier(["get", "--verbose", "--cacert", ca, url])
        #expect(outcome.status == 0, "\(outcome.standardError)")
        let file = try String(contentsOf: NginxInterop.servedFile("encoded/text.txt"), encoding: .utf8)
        #expect(outcome.standardOutput.hasSuffix(file))
        #expect(!outcome.standardOutput.contains("Content-Encoding"))
        #expect(outcome.standardError.contains("> Accept-Encoding: gzip, deflate"))
        #expect(outcome.standardError.contains("< Content-Encoding: gzip"))
    }

    /// `download` takes no TLS options yet (nginx here is HTTPS only): the in-process server echoes what it received.
    @Test func downloadAsksForIdentity() async throws {
        let folder = try Fixtures.temporaryDirectory("decoding")
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = folder.appendingPathComponent("headers.json")
        let outcome = try await CLIRequestTests.courier(["download", try await CLIRequestTests.url("/headers"), "-o", output.path])
        #expect(outcome.status == 0, "\(outcome.standardError)")
        let echo = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: output)) as? [String: Any])
        #expect((echo["headers"] as? [String: Any])?["Accept-Encoding"] as? String == "identity")
    }
}
