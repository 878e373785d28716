import Foundation
import Testing

/// Issue #32, item 1, through the `courier` binary: the hostile server of ``DecodedResumptionTests`` sends gzip
/// whatever the request accepts and drops the first connection halfway through the body.
/// - `courier download` asks for `identity`, keeps the gzip bytes as sent, and `--continue` asks for the rest of
///   *those* bytes: the file is the gzip representation, byte for byte.
/// - `courier batch` accepts gzip and decodes it, so its kept bytes are decoded ones: the second run starts over
///   (no `Range`) instead of appending gzip bytes to text, and the file is the text. (The first run keeps no
///   `.part`: bytes that cannot be continued are not worth keeping.)
@Suite("courier: decoded bytes are never continued by Range", .timeLimit(.minutes(3)))
struct CLIDecodedResumptionTests {
    @Test func downloadContinueAppendsTheRestOfTheBytesAsSent() async throws {
        let server = try await DecodedResumptionTests.startServer()
        defer { Task { await server.stop() } }
        let folder = try Fixtures.temporaryDirectory("cli-decoded-download")
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("text.gz")
        let url = server.url("/gz").absoluteString

        let broken = try await ChildProcess.run("courier", ["download", url, "-o", file.path])
        #expect(broken.status == 4, "\(broken.standardError)")
        let resumed = try await ChildProcess.run("courier", ["download", url, "-o", file.path, "--continue"])
        #expect(resumed.status == 0, "\(resumed.standardError)")
        #expect(try Data(contentsOf: file) == DecodedResumptionTests.gzip, "the file is not the gzip bytes the server sent")
        let requests = server.requests(to: "/gz")
        #expect(requests.count == 2, "\(requests.map { $0.header("Range") })")
        #expect(requests.allSatisfy { $0.header("Accept-Encoding") == "identity" })
        #expect(requests.last?.header("Range") == "bytes=\(DecodedResumptionTests.cut)-", "\(requests.map { $0.header("Range") })")
    }

    @Test func aBatchRerunStartsOverAfterDecodedBytes() async throws {
        let server = try await DecodedResumptionTests.startServer()
        defer { Task { await server.stop() } }
        let folder = try Fixtures.temporaryDirectory("cli-decoded-batch")
        defer { try? FileManager.default.removeItem(at: folder) }
        let list = folder.appendingPathComponent("list.txt")
        try "\(server.url("/gz").absoluteString)\ttext.txt\n".write(to: list, atomically: true, encoding: .utf8)

        let broken = try await ChildProcess.run("courier", ["batch", list.path, "--output-dir", folder.path])
        #expect(broken.status == 6, "\(broken.standardOutput) \(broken.standardError)")
        // Decoded bytes cannot be continued, so none are kept, and nothing is under the final name.
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("text.txt").path))
        let again = try await ChildProcess.run("courier", ["batch", list.path, "--output-dir", folder.path])
        #expect(again.status == 0, "\(again.standardOutput) \(again.standardError)")
        #expect(try Data(contentsOf: folder.appendingPathComponent("text.txt")) == DecodedResumptionTests.text,
                "the file is not the decoded text (gzip bytes spliced onto decoded ones?)")
        let requests = server.requests(to: "/gz")
        #expect(requests.count == 2 && requests.allSatisfy { $0.header("Range") == nil }, "\(requests.map { $0.header("Range") })")
        #expect(requests.first?.header("Accept-Encoding")?.contains("gzip") == true)
    }
}
